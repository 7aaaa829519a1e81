set(env "PATH=${FIXTURES}/detect/bin/old-driver" "--unset=CUDA_VISIBLE_DEVICES")
