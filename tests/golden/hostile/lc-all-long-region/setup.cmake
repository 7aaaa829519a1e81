string(REPEAT "A" 30000 region)
set(env "LC_ALL=zh_${region}")
