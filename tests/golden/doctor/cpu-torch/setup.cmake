set(env "PATH=${FIXTURES}/detect/bin/cpu-torch" "--unset=CUDA_VISIBLE_DEVICES")
