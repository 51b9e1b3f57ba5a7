#!/bin/sh
# build.sh OUTDIR - build the softverbs test device and its tools into OUTDIR:
#
#   OUTDIR/libibverbs.so.1   the softverbs shim (drop-in libibverbs, soname libibverbs.so.1)
#   OUTDIR/libibverbs.so     link-time name for -libverbs
#   OUTDIR/libsoftverbs.so   the same library under its own name (for FFM libraryLookup by path)
#   OUTDIR/libmlx5.so.1      stand-in mlx5 direct verbs (DC entry points), linked against the shim
#   OUTDIR/layout            struct/enum layout dumper (name=value lines)
#   OUTDIR/softverbs_test    C test of the shim (rpath -> OUTDIR)
#   OUTDIR/softverbs_xp_test C test of the shim across two processes (rpath -> OUTDIR)
#   OUTDIR/softverbs_dc_test C test of DC through the stand-in libmlx5 (rpath -> OUTDIR)
#
# and runs check_symbols.sh on the result.  Needs gcc (or $CC), the
# libibverbs-dev headers and binutils; no RDMA hardware or kernel support.
set -eu

if [ $# -ne 1 ]; then
	echo "usage: $0 OUTDIR" >&2
	exit 2
fi

here=$(cd "$(dirname "$0")" && pwd)
CC=${CC:-gcc}
VERBS_H=${VERBS_H:-/usr/include/infiniband/verbs.h}
MLX5DV_H=${MLX5DV_H:-$(dirname "$VERBS_H")/mlx5dv.h}

if ! command -v "$CC" >/dev/null 2>&1; then
	echo "build.sh: error: C compiler '$CC' not found; install gcc (Debian: apt-get install gcc)" >&2
	exit 1
fi
if [ ! -f "$VERBS_H" ]; then
	echo "build.sh: error: $VERBS_H not found; install the rdma-core headers (Debian: apt-get install libibverbs-dev)" >&2
	exit 1
fi

if [ ! -f "$MLX5DV_H" ]; then
	echo "build.sh: error: $MLX5DV_H not found; install the rdma-core headers (Debian: apt-get install libibverbs-dev)" >&2
	exit 1
fi

mkdir -p "$1"
out=$(cd "$1" && pwd)
CFLAGS=${CFLAGS:--O2 -g}
WARN="-Wall -Wextra"

echo "build.sh: shim -> $out/libibverbs.so.1"
"$CC" $CFLAGS $WARN -shared -fPIC -fvisibility=hidden -pthread \
	-Wl,-soname,libibverbs.so.1 -Wl,--version-script="$here/softverbs.map" -Wl,--no-undefined \
	-o "$out/libibverbs.so.1" "$here/softverbs.c" "$here/softverbs_stubs.c"
ln -sf libibverbs.so.1 "$out/libibverbs.so"
ln -sf libibverbs.so.1 "$out/libsoftverbs.so"

echo "build.sh: stand-in mlx5 -> $out/libmlx5.so.1"
"$CC" $CFLAGS $WARN -shared -fPIC -fvisibility=hidden \
	-Wl,-soname,libmlx5.so.1 -Wl,--version-script="$here/softverbs_mlx5.map" -Wl,--no-undefined \
	-Wl,-rpath,'$ORIGIN' -o "$out/libmlx5.so.1" "$here/softverbs_mlx5.c" "$here/softverbs_mlx5_stubs.c" -L"$out" -libverbs
ln -sf libmlx5.so.1 "$out/libmlx5.so"

echo "build.sh: layout dumper -> $out/layout"
"$CC" $CFLAGS $WARN -o "$out/layout" "$here/layout.c"

echo "build.sh: test -> $out/softverbs_test"
"$CC" $CFLAGS $WARN -pthread -o "$out/softverbs_test" "$here/softverbs_test.c" \
	-L"$out" -libverbs -Wl,-rpath,"$out"

echo "build.sh: two-process test -> $out/softverbs_xp_test"
"$CC" $CFLAGS $WARN -o "$out/softverbs_xp_test" "$here/softverbs_xp_test.c" \
	-L"$out" -libverbs -Wl,-rpath,"$out"

echo "build.sh: DC test -> $out/softverbs_dc_test"
"$CC" $CFLAGS $WARN -o "$out/softverbs_dc_test" "$here/softverbs_dc_test.c" \
	-L"$out" -lmlx5 -libverbs -Wl,-rpath,"$out"

sh "$here/check_symbols.sh" "$out/libibverbs.so.1" "$out/libmlx5.so.1"
echo "build.sh: done"
