set(env "PATH=${FIXTURES}/detect/bin/xpu-unknown" "--unset=CUDA_VISIBLE_DEVICES")
