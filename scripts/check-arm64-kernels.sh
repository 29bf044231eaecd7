#!/usr/bin/env bash
# Builds the runtime's C kernels (Sources/CKernels) for arm64 with the compiler SwiftPM uses and
# Debian's arm64 C library, and runs Tests/CKernelsCheck/check_kernels.c against them under qemu:
# the arm64 build of the kernels (portable C and clang's vectors, which become NEON) checked on an
# x86-64 machine. With --native it checks this machine's own variants instead (baseline, AVX2,
# AVX-512, as the CPU allows).
#
#   scripts/check-arm64-kernels.sh [--native]
#
# Needs (Debian): gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user (scripts/install-deps.sh --test).
set -euo pipefail
cd "$(dirname "$0")/.."
clang=$(dirname "$(readlink -f "$(command -v swift)")")/clang
[ -x "$clang" ] || clang=clang
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
flags=(-std=c11 -O2 -Wall -Wextra -Werror -ISources/CKernels/include)
if [ "${1:-}" = --native ]; then
  "$clang" "${flags[@]}" Sources/CKernels/*.c Tests/CKernelsCheck/check_kernels.c -lm -o "$out/check"
  "$out/check"
  exit
fi
for tool in aarch64-linux-gnu-gcc qemu-aarch64; do
  command -v "$tool" >/dev/null || { echo "$tool is missing: apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user" >&2; exit 2; }
done
for source in Sources/CKernels/*.c Tests/CKernelsCheck/check_kernels.c; do
  "$clang" --target=aarch64-linux-gnu -isystem /usr/aarch64-linux-gnu/include "${flags[@]}" -c "$source" \
    -o "$out/$(basename "$source" .c).o"
done
aarch64-linux-gnu-gcc -static "$out"/*.o -lm -o "$out/check"
file "$out/check" | grep -q 'ARM aarch64' || { echo "not an arm64 program" >&2; exit 1; }
qemu-aarch64 "$out/check"
