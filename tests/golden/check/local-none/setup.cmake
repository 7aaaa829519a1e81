set(env "PATH=${FIXTURES}/detect/bin/none" "--unset=CUDA_VISIBLE_DEVICES")
