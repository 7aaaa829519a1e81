set(env "PATH=${FIXTURES}/detect/bin/mac" "--unset=CUDA_VISIBLE_DEVICES")
