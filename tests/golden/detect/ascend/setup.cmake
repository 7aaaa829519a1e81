set(env "PATH=${FIXTURES}/detect/bin/ascend" "--unset=CUDA_VISIBLE_DEVICES")
