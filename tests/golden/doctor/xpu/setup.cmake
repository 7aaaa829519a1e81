set(env "PATH=${FIXTURES}/detect/bin/xpu" "--unset=CUDA_VISIBLE_DEVICES")
