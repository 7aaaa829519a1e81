set(env "PATH=${FIXTURES}/detect/bin/rocm" "--unset=CUDA_VISIBLE_DEVICES")
