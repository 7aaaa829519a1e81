// Framework behaviours of data/frameworks.json that add transient or duplicated tensors:
// the dequantized copy of a 4-bit weight, litgpt's own quantized LM head, a foreach AdamW
// step's temporary, DeepSpeed's reduce buckets, AutoGPTQ's saved dequantized weights,
// litgpt's fp32 loss. Exact bytes from estimator_fixtures.hpp.
#include <catch2/catch.hpp>

#include "estimator_fixtures.hpp"
#include "gpusel/base/error.hpp"
#include "gpusel/data/frameworks.hpp"
#include "gpusel/memory/estimator.hpp"

using namespace gpusel;
using test_models::on;

namespace {

Workload framework_with(Workload w, const char* framework) {
  apply_framework(w, framework_profile(framework), false, true);
  return w;
}

}  // namespace

TEST_CASE("bitsandbytes dequantizes the largest 4-bit weight to one 16-bit copy (hf)") {
  Workload w = framework_with(on(test_models::llama2_7b(), Mode::qlora), "hf");
  // Llama-2-7B's widest linear is an MLP matrix, 4096 x 11008; the LM head stays 16-bit.
  CHECK(estimate(w).bytes_of("dequant_buffer") == 1 * 4096.0 * 11008 * 2);
  w.mode = Mode::lora;  // a 16-bit base dequantizes nothing
  CHECK(estimate(w).bytes_of("dequant_buffer") == 0);
}

TEST_CASE("litgpt quantizes its LM head and holds two 16-bit copies while dequantizing") {
  const Workload w = framework_with(on(test_models::llama2_7b(), Mode::qlora), "litgpt");
  const Estimate e = estimate(w);
  // Lightning quantizes from fp16 and computes in bf16: the fp16 dequantized head and its
  // bf16 conversion, 2 x 32000 x 4096 x 2 B.
  CHECK(e.bytes_of("dequant_buffer") == 2 * 32000.0 * 4096 * 2);
  // The head moves from 16-bit into the 4-bit weights: 131,072,000 params x (2 - 0.5) B less.
  FrameworkProfile kept = framework_profile("litgpt");
  kept.quantizes_lm_head.value = false;
  Workload k = on(test_models::llama2_7b(), Mode::qlora);
  apply_framework(k, kept, false, true);
  CHECK(estimate(k).bytes_of("weights") - e.bytes_of("weights") == Approx(32000.0 * 4096 * 1.5));
}

TEST_CASE("litgpt keeps a tied checkpoint's LM head as a matrix of its own") {
  Workload w = on(test_models::llama2_7b(), Mode::inference);
  w.model.tied_embeddings = true;
  const double hf = estimate(framework_with(w, "hf")).bytes_of("weights");
  CHECK(estimate(framework_with(w, "litgpt")).bytes_of("weights") - hf ==
        Approx(32000.0 * 4096 * 2));
}

TEST_CASE("a one-token prompt takes bitsandbytes' gemv path: no dequantized copy") {
  Workload w = framework_with(on(test_models::llama2_7b(), Mode::inference), "hf");
  w.precision = Precision::int4;
  w.seq_len = 64, w.prompt_len = 20;
  CHECK(estimate(w).bytes_of("dequant_buffer") == 4096.0 * 11008 * 2);
  w.prompt_len = 1;
  CHECK(estimate(w).bytes_of("dequant_buffer") == 0);
}

TEST_CASE("a foreach AdamW step allocates one state-sized temporary (litgpt), fused none (hf)") {
  Workload w = on(test_models::llama2_7b(), Mode::full);
  w.seq_len = 16;  // short: the activations freed before the step are smaller than it
  // One micro-batch: the gradients made in backward are all there at the step, beyond the
  // few activations, so the whole temporary adds (bf16-true: 6.74e9 trainable x 2 B).
  CHECK(estimate(framework_with(w, "litgpt")).bytes_of("optimizer_step") == Approx(6.74e9 * 2));
  // Accumulating: the gradients were counted whole beside the activations, which the step
  // no longer holds: only the temporary's part beyond them adds.
  w.grad_accum = 2;
  const Estimate e = estimate(framework_with(w, "litgpt"));
  const double freed = e.bytes_of("activations") + e.bytes_of("logits");
  CHECK(e.bytes_of("optimizer_step") == Approx(6.74e9 * 2 - freed));
  CHECK(estimate(framework_with(w, "hf")).bytes_of("optimizer_step") == 0);
}

TEST_CASE("LLM.int8 training makes one 16-bit copy of the int8 weight in backward only") {
  Workload w = framework_with(on(test_models::llama2_7b(), Mode::qlora), "hf");
  w.precision = Precision::int8;
  CHECK(estimate(w).bytes_of("dequant_buffer") == 4096.0 * 11008 * 2);
  w.mode = Mode::inference;  // int8 forward: no full-size copy
  CHECK(estimate(w).bytes_of("dequant_buffer") == 0);
}

TEST_CASE("DeepSpeed overlap_comm doubles the reduce bucket of ZeRO-1/2, not of ZeRO-3") {
  Workload w = framework_with(on(test_models::llama2_7b(), Mode::lora), "hf");
  w.gpus = 2, w.shard = Shard::zero2;
  w.framework.zero.value.reduce_bucket_size = 2e8;
  // DeepSpeed's default (auto): overlap_comm off below stage 3, one bucket of 2e8 x 2 B.
  CHECK(estimate(w).bytes_of("comm_buffers") == 2e8 * 2);
  w.framework.zero.value.overlap_comm = 1;
  CHECK(estimate(w).bytes_of("comm_buffers") == 2 * 2e8 * 2);
  w.shard = Shard::zero3;  // stage3.py allocates its IPG bucket once
  CHECK(estimate(w).bytes_of("comm_buffers") == 2e8 * 2);
}

TEST_CASE("the ds-overlap-comm flag sets overlap_comm over the profile and names itself") {
  Workload w = on(test_models::llama2_7b(), Mode::lora);
  w.gpus = 2, w.shard = Shard::zero2;
  FrameworkOverrides o;
  o.ds_overlap_comm = true;
  apply_framework(w, framework_profile("hf"), false, true, o);
  CHECK(w.framework.zero.value.overlap_comm == 1);
  CHECK(w.framework.zero.source.find("--ds-overlap-comm") != std::string::npos);
  const double two = estimate(w).bytes_of("comm_buffers");
  o.ds_overlap_comm = false;
  Workload off = on(test_models::llama2_7b(), Mode::lora);
  off.gpus = 2, off.shard = Shard::zero2;
  apply_framework(off, framework_profile("hf"), false, true, o);
  CHECK(two == 2 * estimate(off).bytes_of("comm_buffers"));
}

TEST_CASE("AutoGPTQ's torch path saves each block's dequantized weights (dequant_saved)") {
  FrameworkProfile f = framework_profile("hf");
  Workload w = on(test_models::llama2_7b(), Mode::qlora);
  apply_framework(w, f, false, true);
  w.grad_ckpt = true;
  CHECK(estimate(w).bytes_of("dequant_saved") == 0);  // bitsandbytes saves the packed weight
  f.dequant_saved.value = true;
  apply_framework(w, f, false, true);
  w.grad_ckpt = true;
  // One Llama-2-7B block's quantized weights (q, k, v, o and three MLP matrices) at 2 B: the
  // one block recomputed at a time under checkpointing, every block without it (the 6.74e9
  // count's remainder spreads over the linear layers: within 0.1 %).
  const double block = 4 * 4096.0 * 4096 + 3 * 4096.0 * 11008;
  CHECK(estimate(w).bytes_of("dequant_saved") == Approx(block * 2).epsilon(0.001));
  w.grad_ckpt = false;
  CHECK(estimate(w).bytes_of("dequant_saved") == Approx(32 * block * 2).epsilon(0.001));
  w.mode = Mode::inference, w.precision = Precision::int4;  // no gradients: nothing saved
  CHECK(estimate(w).bytes_of("dequant_saved") == 0);
  Workload flag = on(test_models::llama2_7b(), Mode::qlora);  // --dequant-saved over hf
  FrameworkOverrides o;
  o.dequant_saved = true;
  apply_framework(flag, framework_profile("hf"), false, true, o);
  flag.grad_ckpt = true;
  CHECK(estimate(flag).bytes_of("dequant_saved") == Approx(block * 2).epsilon(0.001));
}

TEST_CASE("litgpt's loss sees fp32 logits: Fabric converts the model's outputs to fp32") {
  Workload w = framework_with(on(test_models::llama2_7b(), Mode::lora), "litgpt");
  w.batch = 1, w.seq_len = 1024;
  // fp32 logits and fp32 log-softmax kept (8 B), the fp32 gradients of one 128-token chunk
  // of eight (8 B / 8).
  CHECK(estimate(w).bytes_of("logits") == Approx(1024.0 * 32000 * (8 + 8.0 / 8)));
}

// torch autocast over an fp32 model (one GPU): the fp32 parameters are the master, no 16-bit
// working copy; the forward caches a 16-bit cast of each trained matmul weight: the linear
// layers and the LM head, and a tied embedding with it (the head multiplies by it).
TEST_CASE("torch AMP: fp32 parameters, no master copy, a forward-long cast of the matmul weights") {
  Workload w = framework_with(on(test_models::llama31_8b(), Mode::full), "hf");
  w.amp = true;
  const ArchParams p = arch_params(w.model);
  const Estimate e = estimate(w);
  CHECK(e.bytes_of("weights") == Approx(p.total * 4));
  CHECK(e.bytes_of("master_weights") == 0);
  CHECK(e.bytes_of("autocast_cache") == Approx((p.linear + p.lm_head) * 2));
  Workload tied = w;
  tied.model.tied_embeddings = true;
  const ArchParams q = arch_params(tied.model);
  REQUIRE(q.lm_head == 0);
  CHECK(estimate(tied).bytes_of("autocast_cache") == Approx((q.linear + q.embedding) * 2));
  // Under ZeRO the engine trains a 16-bit copy beside an fp32 master partition: no cache.
  Workload zero = w;
  zero.gpus = 2, zero.shard = Shard::zero2;
  CHECK(estimate(zero).bytes_of("autocast_cache") == 0);
  CHECK(estimate(zero).bytes_of("master_weights") > 0);
}

// zero_grad(set_to_none=True) frees the gradients after each step; DeepSpeed's engine keeps
// its buffers (frameworks.json grads_freed_each_step), and so does gradient accumulation.
TEST_CASE("gradients count whole only where they outlive the step") {
  Workload w = framework_with(on(test_models::llama2_7b(), Mode::full), "hf");
  w.batch = 8, w.grad_ckpt = false;  // activations beyond the gradients: the forward peaks
  const Estimate hf = estimate(w);
  CHECK(hf.bytes_of("gradients") == 0);
  Workload kept = w;
  kept.framework.grads_freed_each_step.value = false;
  CHECK(estimate(kept).bytes_of("gradients") == Approx(6.74e9 * 2).epsilon(0.01));
  CHECK(!framework_profile("deepspeed").grads_freed_each_step.value);
  Workload accum = w;
  accum.grad_accum = 4;
  CHECK(estimate(accum).bytes_of("gradients") == Approx(6.74e9 * 2).epsilon(0.01));
  CHECK(estimate(accum).allocated_bytes() > hf.allocated_bytes());
}

TEST_CASE("Unsloth trains several GPUs data-parallel, offloading through ZeRO-3") {
  // Its multi-GPU guide is DDP (a copy of the model per GPU): no FSDP sharding saves memory.
  const Workload w = framework_with(on(test_models::llama2_7b(), Mode::lora), "unsloth");
  CHECK(on_gpus(w, 2).shard == Shard::ddp);
  // No sharding: each GPU holds what one does, plus DDP's gradient buckets.
  CHECK(estimate(on_gpus(w, 2)).need_bytes() >= estimate(on_gpus(w, 1)).need_bytes());
  Workload off = w;
  off.offload = Offload::optimizer;
  CHECK(on_gpus(off, 2).shard == Shard::zero3);
  CHECK(on_gpus(framework_with(on(test_models::llama2_7b(), Mode::lora), "hf"), 2).shard ==
        Shard::fsdp);
}

TEST_CASE("torchtitan: one fused wqkv, no K/V copy, gradients kept, reduce-scatter every step") {
  const FrameworkProfile& t = framework_profile("torchtitan");
  CHECK(t.fused_qkv.value);
  CHECK(!t.kv_repeat.value);
  CHECK(!t.grads_freed_each_step.value);  // CUDA graphs zero them in place
  CHECK(!t.fsdp_no_sync_accumulation.value);
  // FSDP over 8 GPUs with 4 micro-batches: each GPU keeps its gradient shard, never the
  // unsharded gradients accelerate's no_sync accumulates.
  Workload w = framework_with(on(test_models::llama2_7b(), Mode::full), "torchtitan");
  w.gpus = 8, w.shard = Shard::fsdp, w.grad_accum = 4;
  Workload hf = framework_with(on(test_models::llama2_7b(), Mode::full), "hf");
  hf.gpus = 8, hf.shard = Shard::fsdp, hf.grad_accum = 4;
  CHECK(estimate(w).bytes_of("gradients") < estimate(hf).bytes_of("gradients") / 4);
  CHECK(estimate(w).bytes_of("gradients") == Approx(6.74e9 * 2 / 8).epsilon(0.01));
}

TEST_CASE("an optimizer stepped in backward cannot accumulate micro-batches") {
  // torchtune's single-device full recipe steps in backward; accumulating, its user turns
  // that off (the recipe raises otherwise): full gradients again.
  Workload w = framework_with(on(test_models::llama2_7b(), Mode::full), "torchtune");
  const double one = estimate(w).bytes_of("gradients");
  w.grad_accum = 4;
  CHECK(estimate(w).bytes_of("gradients") > one);
  // Asked for explicitly (--opt-in-bwd), accumulation is a usage error.
  w.framework.optimizer_in_backward.value = "always";
  CHECK_THROWS_AS(estimate(w), Error);
  w.grad_accum = 1;
  CHECK_NOTHROW(estimate(w));
}
