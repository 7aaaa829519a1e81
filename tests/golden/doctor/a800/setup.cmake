set(env "PATH=${FIXTURES}/detect/bin/a800" "--unset=CUDA_VISIBLE_DEVICES")
