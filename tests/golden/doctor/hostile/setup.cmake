set(env "PATH=${FIXTURES}/detect/bin/hostile" "--unset=CUDA_VISIBLE_DEVICES")
