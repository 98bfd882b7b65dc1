# device-setup.sh - source this on the GPU machine (from the repository
# root): unpacks the carried libraries (.device/emdeps.tar.xz from
# ../shared/gpu/pack-deps.sh, .device/extras.tar.xz from
# scripts/pack-device-extras.sh) into /opt/emdeps and points the build and
# the loader at them.
mkdir -p /opt
[ -d /opt/emdeps ] || tar xJf .device/emdeps.tar.xz -C /opt
[ -f .device/extras.tar.xz ] && tar xJf .device/extras.tar.xz -C /opt
export LD_LIBRARY_PATH=/opt/emdeps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export CMAKE_PREFIX_PATH=/opt/emdeps
