#include "gpusel/memory/estimator.hpp"
#include "gpusel/memory/param_count.hpp"

#include <catch2/catch.hpp>
#include <set>

#include "estimator_fixtures.hpp"
#include "gpusel/base/error.hpp"
#include "gpusel/data/constants.hpp"

using namespace gpusel;
using test_models::on;

namespace {

double states(const Estimate& e) {
  return e.bytes_of("weights") + e.bytes_of("gradients") + e.bytes_of("optimizer_states") +
         e.bytes_of("master_weights");
}

Workload zero_paper(Shard shard, int gpus) {
  // ZeRO (arXiv:1910.02054) s3.1/s5: a 7.5B model, mixed-precision Adam, N_d ranks.
  Workload w = on(typical_arch({7.5e9, 7.5e9}), Mode::full);
  w.precision = Precision::fp16, w.amp = true, w.shard = shard, w.gpus = gpus;
  return w;
}

}  // namespace

TEST_CASE("inference weights are 2 bytes per parameter in bf16") {
  const Estimate e = estimate(on(test_models::llama2_7b(), Mode::inference));
  CHECK(e.bytes_of("weights") == Approx(2 * 6.74e9));
  CHECK(e.bytes_of("gradients") == 0);
}

TEST_CASE("Llama-2-7B's KV cache at 2048 tokens is exactly 1 GiB (llama.cpp: 1024.00 MB)") {
  Workload w = on(test_models::llama2_7b(), Mode::inference);
  w.seq_len = 2048;
  CHECK(estimate(w).bytes_of("kv_cache") == 1073741824.0);
  w.model.kv_heads = 8;  // GQA divides it by heads / kv_heads
  CHECK(estimate(w).bytes_of("kv_cache") == 1073741824.0 / 4);
}

TEST_CASE("ZeRO's 7.5B example: 120 GB, and 31.4 / 16.6 / 1.9 GB per GPU at N_d = 64") {
  CHECK(states(estimate(zero_paper(Shard::zero1, 1))) / 1e9 == Approx(120));
  CHECK(states(estimate(zero_paper(Shard::zero1, 64))) / 1e9 == Approx(31.4).margin(0.05));
  CHECK(states(estimate(zero_paper(Shard::zero2, 64))) / 1e9 == Approx(16.6).margin(0.05));
  // Stage 3: 16 B/param / 64; the live parameters and buckets are components of their own.
  const Estimate e3 = estimate(zero_paper(Shard::zero3, 64));
  CHECK(states(e3) / 1e9 == Approx(1.875).margin(0.01));
  CHECK(e3.bytes_of("gathered_params") > 0);
  CHECK(e3.bytes_of("comm_buffers") > 0);
}

TEST_CASE("ZeRO-1/2's step builds fp32 gradients of the whole partition (stage_1_and_2.py)") {
  for (Shard shard : {Shard::zero1, Shard::zero2}) {
    Workload w = zero_paper(shard, 8);
    w.seq_len = 256;  // short: the activations freed before the step are smaller than it
    const Estimate e = estimate(w);
    const double freed = e.bytes_of("activations") + e.bytes_of("logits");
    const double fp32_grads = arch_params(w.model).total * 4 / 8;
    CHECK(freed < fp32_grads);
    CHECK(e.bytes_of("optimizer_step") == Approx(fp32_grads - freed));
    w.offload = Offload::optimizer;  // ZeRO-Offload writes them into the CPU partition
    CHECK(estimate(w).bytes_of("optimizer_step") == 0);
  }
}

TEST_CASE("QLoRA stores NF4 with double-quantized constants: 4.127 bits per linear weight") {
  Workload w = on(test_models::llama2_7b(), Mode::qlora);
  const ArchParams p = arch_params(w.model);
  const Estimate e = estimate(w);
  CHECK(e.bytes_of("quantization_state") == Approx(p.linear * 0.127 / 8));
  // Embeddings and head are upcast to fp32 by PEFT's k-bit preparation.
  CHECK(e.bytes_of("weights") == Approx(p.linear * 0.5 + (p.total - p.linear) * 4));
  w.double_quant = false;
  CHECK(estimate(w).bytes_of("quantization_state") == Approx(p.linear * 0.5 / 8));
}

TEST_CASE("LoRA adapters are r x (d_in + d_out) per adapted matrix") {
  Workload w = on(test_models::llama2_7b(), Mode::lora);
  w.lora_rank = 8, w.lora_targets = LoraTargets::qv;
  // 0.06 % trainable for Llama-2-7B r8 on q,v (ESTIMATOR.md): 32 x 8 x 2 x 8192 = 4.19M.
  const double adapters = 32.0 * 8 * 2 * (4096 + 4096);
  CHECK(estimate(w).bytes_of("lora_adapters") == Approx(adapters * 4));
  CHECK(adapters / 6.74e9 == Approx(0.0006).margin(0.0001));
}

TEST_CASE("the total is the sum of the components, inside its band") {
  for (Mode m : {Mode::inference, Mode::full, Mode::freeze, Mode::lora, Mode::qlora}) {
    const Estimate e = estimate(on(test_models::llama31_8b(), m));
    double sum = 0;
    std::set<std::string> names;
    for (const auto& c : e.components) sum += c.bytes, names.insert(c.name);
    CHECK(sum == Approx(e.total_bytes));
    CHECK(e.low_bytes < e.total_bytes);
    CHECK(e.high_bytes > e.total_bytes);
    CHECK(names.count("cuda_context") == 1);
    // PyTorch's caching allocator keeps freed blocks; llama.cpp (batch-1 inference's default
    // engine) sizes its buffers once and has no such share.
    const bool ggml = m == Mode::inference;
    CHECK(names.count("allocator_overhead") == (ggml ? 0u : 1u));
    if (ggml)
      CHECK(e.allocated_bytes() == Approx(e.reserved_bytes()));
    else
      CHECK(e.allocated_bytes() < e.reserved_bytes());
    CHECK(e.reserved_bytes() < e.total_bytes);
    CHECK_FALSE(e.assumptions.empty());
  }
  // The same inference through transformers keeps the allocator's share.
  Workload hf = on(test_models::llama31_8b(), Mode::inference);
  hf.engine = "transformers";
  const Estimate e = estimate(hf);
  CHECK(e.allocated_bytes() < e.reserved_bytes());
}

TEST_CASE("a bare parameter count gets a wider band than a preset") {
  Workload preset = on(test_models::llama31_8b(), Mode::lora);
  Workload bare = on(typical_arch({8.03e9, 8.03e9}), Mode::lora);
  bare.model_from_preset = false;
  const Estimate a = estimate(preset), b = estimate(bare);
  CHECK((b.high_bytes - b.low_bytes) / b.total_bytes >
        (a.high_bytes - a.low_bytes) / a.total_bytes);
}

TEST_CASE("memory grows with params, batch, sequence length and LoRA rank") {
  for (Mode m : {Mode::inference, Mode::full, Mode::lora, Mode::qlora}) {
    INFO(to_string(m));
    double last = 0;
    for (double p : {1e9, 3e9, 7e9, 13e9, 70e9}) {
      const double t = estimate(on(typical_arch({p, p}), m)).total_bytes;
      CHECK(t > last);
      last = t;
    }
    // Full fine-tuning with one micro-batch peaks at the end of backward (all gradients)
    // until the forward's activations outweigh them: never falling, growing overall.
    const bool flat_start = m == Mode::full;
    Workload w = on(test_models::llama31_8b(), m);
    const double first = estimate(w).total_bytes;
    double prev = first;
    for (int b : {2, 4, 8}) {
      w.batch = b;
      const double t = estimate(w).total_bytes;
      CHECK((flat_start ? t >= prev : t > prev));
      prev = t;
    }
    CHECK(prev > first);
    w.batch = 1;
    prev = 0;
    for (int s : {128, 512, 2048, 8192}) {
      w.seq_len = s;
      const double t = estimate(w).total_bytes;
      CHECK((flat_start && s > 128 ? t >= prev : t > prev));
      prev = t;
    }
  }
  Workload w = on(test_models::llama31_8b(), Mode::lora);
  double prev = 0;
  for (int r : {4, 16, 64, 256}) {
    w.lora_rank = r;
    CHECK(estimate(w).total_bytes > prev);
    prev = estimate(w).total_bytes;
  }
}

TEST_CASE("qlora <= lora <= full at equal settings") {
  for (bool ckpt : {true, false}) {
    Workload w = on(test_models::llama31_8b(), Mode::full);
    w.grad_ckpt = ckpt, w.seq_len = 1024;
    const double full = estimate(w).total_bytes;
    w.mode = Mode::lora;
    const double lora = estimate(w).total_bytes;
    w.mode = Mode::qlora;
    const double qlora = estimate(w).total_bytes;
    CHECK(qlora < lora);
    CHECK(lora < full);
  }
}

TEST_CASE("a bare MoE count quantizes its experts: 30B-A3B in NF4 is about 4 bits a weight") {
  const ModelArch moe = typical_arch({30e9, 3e9});
  const ArchParams p = arch_params(moe);
  CHECK(p.total == Approx(30e9));
  CHECK(p.linear > 0.9 * p.total);  // experts are linear layers, not "other" parameters
  const Estimate q = estimate(on(moe, Mode::qlora));
  // NF4 for the linears (~0.52 B) and fp32 for embeddings and norms after k-bit preparation.
  CHECK(q.bytes_of("weights") < 30e9 * 0.7);
  CHECK(q.bytes_of("weights") > 30e9 * 0.5);
  CHECK(estimate(on(moe, Mode::qlora)).total_bytes < estimate(on(moe, Mode::lora)).total_bytes / 2);
}

TEST_CASE("sharding divides what each strategy divides") {
  Workload w = on(test_models::llama31_8b(), Mode::full);
  w.amp = true;
  auto at = [&](Shard s, int n) {
    Workload v = w;
    v.shard = s, v.gpus = n;
    return estimate(v);
  };
  const Estimate one = at(Shard::zero1, 1), z1 = at(Shard::zero1, 4), z2 = at(Shard::zero2, 4);
  CHECK(z1.bytes_of("optimizer_states") == Approx(one.bytes_of("optimizer_states") / 4));
  CHECK(z1.bytes_of("master_weights") == Approx(one.bytes_of("master_weights") / 4));
  CHECK(z1.bytes_of("gradients") == Approx(one.bytes_of("gradients")));  // not sharded
  CHECK(z2.bytes_of("gradients") == Approx(one.bytes_of("gradients") / 4));
  CHECK(z1.bytes_of("activations") == Approx(one.bytes_of("activations")));
  for (int n : {2, 4, 8}) {
    CHECK(at(Shard::zero3, n).total_bytes <= at(Shard::ddp, n).total_bytes);
    CHECK(at(Shard::fsdp, n).total_bytes <= at(Shard::zero2, n).total_bytes);
  }
  Workload inf = on(test_models::llama31_8b(), Mode::inference);
  const double w1 = estimate(inf).bytes_of("weights");
  inf.gpus = 4, inf.shard = Shard::tp;
  CHECK(estimate(inf).bytes_of("weights") == Approx(w1 / 4));
}

TEST_CASE("chunked loss, checkpointing and flash attention each save memory") {
  Workload w = on(test_models::llama31_8b(), Mode::lora);
  w.seq_len = 4096, w.grad_ckpt = false, w.flash_attn = false;
  const double base = estimate(w).total_bytes;
  for (auto change :
       {+[](Workload& v) { v.loss = Loss::chunked; }, +[](Workload& v) { v.grad_ckpt = true; },
        +[](Workload& v) { v.flash_attn = true; }}) {
    Workload v = w;
    change(v);
    CHECK(estimate(v).total_bytes < base);
  }
  // 128k vocabulary: unchunked logits outweigh a QLoRA 8B's weights at 8 x 4096 tokens.
  w.mode = Mode::qlora, w.batch = 8, w.grad_ckpt = true, w.flash_attn = true;
  const Estimate e = estimate(w);
  CHECK(e.bytes_of("logits") > e.bytes_of("weights"));
}

TEST_CASE("impossible workloads are usage errors") {
  Workload w = on(test_models::llama2_7b(), Mode::full);
  w.precision = Precision::int4;
  CHECK_THROWS_AS(estimate(w), Error);
  w = on(test_models::llama2_7b(), Mode::lora);
  w.batch = 0;
  CHECK_THROWS_WITH(estimate(w), Catch::Contains("--batch"));
  w.batch = 1, w.offload = Offload::params, w.shard = Shard::ddp, w.shard_given = true;
  CHECK_THROWS_WITH(estimate(w), Catch::Contains("zero3"));
  w.shard = Shard::none, w.shard_given = false;  // one GPU: DeepSpeed ZeRO-Infinity
  CHECK_NOTHROW(estimate(w));
  w = on(test_models::llama2_7b(), Mode::lora);
  w.seq_len = 0;
  CHECK_THROWS_WITH(estimate(w), Catch::Contains("--seq-len"));
  w.seq_len = 512, w.amp = true;  // --amp with LoRA: 16-bit compute over an fp32 base only
  CHECK_THROWS_WITH(estimate(w), Catch::Contains("--precision fp32"));
  w.precision = Precision::fp32;
  CHECK_NOTHROW(estimate(w));
  w = on(test_models::llama2_7b(), Mode::inference);  // 32 heads
  w.shard = Shard::tp, w.gpus = 3;
  CHECK_THROWS_WITH(estimate(w), Catch::Contains("32 heads"));
  CHECK_FALSE(tensor_parallel_splits(w, 3));
  CHECK(tensor_parallel_splits(w, 4));
  w.gpus = 4;
  CHECK_NOTHROW(estimate(w));
  w.mode = Mode::full, w.shard = Shard::fsdp;
  CHECK(tensor_parallel_splits(w, 3));  // FSDP shards parameters, not heads
}

TEST_CASE("every constant the estimator uses has a value") {
  CHECK(data_constant("cuda_context_bytes") > 0);
  CHECK(data_constant("allocator_overhead_fraction") > 0);
  CHECK_THROWS_AS(data_constant("no_such_constant"), Error);
}
