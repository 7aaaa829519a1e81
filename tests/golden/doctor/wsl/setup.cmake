set(env "PATH=${FIXTURES}/detect/bin/wsl" "--unset=CUDA_VISIBLE_DEVICES")
