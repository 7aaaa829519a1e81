set(env "PATH=${FIXTURES}/detect/bin/gb10" "--unset=CUDA_VISIBLE_DEVICES")
