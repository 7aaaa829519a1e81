set(env "PATH=${FIXTURES}/detect/bin/ascend-a3" "--unset=CUDA_VISIBLE_DEVICES")
