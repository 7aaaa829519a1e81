set(env "PATH=${FIXTURES}/detect/bin/mac-unknown" "--unset=CUDA_VISIBLE_DEVICES")
