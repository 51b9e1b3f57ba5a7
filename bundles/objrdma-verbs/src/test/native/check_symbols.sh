#!/bin/sh
# check_symbols.sh [SHIM.so [MLX5.so]] - verify that softverbs exports the libibverbs ABI
# with the same DEFAULT symbol versions as the real libibverbs.so.1, and that the
# stand-in libmlx5.so.1 (softverbs_mlx5.map) does the same against the real libmlx5.so.1.
#
#  1. every symbol listed in softverbs.map under an IBVERBS_* node is exported
#     by the real library as sym@@THAT_NODE (its default version);
#  2. every version node the real library defines is declared in the map, so
#     a binary that needs any of them still loads against the shim;
#  3. with SHIM.so: its exported symbols are exactly the map's, all with a
#     default (@@) version, and nothing is exported unversioned.
#
# The same three checks run for softverbs_mlx5.map against the real libmlx5.so.1, which
# must also list every symbol the real library exports by default
# ($REAL_MLX5, else ldconfig's), and with MLX5.so on the built stand-in.
#
# The real library is $REAL_IBVERBS, else the one ldconfig knows, else
# /usr/lib/<multiarch>/libibverbs.so.1.  Needs binutils nm >= 2.35 (-D shows versions).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
map="$here/softverbs.map"
shim="${1:-}"
mlx5_shim="${2:-}"
fail=0
err() { echo "check_symbols: $*" >&2; fail=1; }

real="${REAL_IBVERBS:-}"
if [ -z "$real" ]; then
	real=$(ldconfig -p 2>/dev/null | awk '$1 == "libibverbs.so.1" { print $NF; exit }')
fi
if [ -z "$real" ] && command -v gcc >/dev/null 2>&1; then
	real="/usr/lib/$(gcc -print-multiarch)/libibverbs.so.1"
fi
if [ -z "$real" ] || [ ! -e "$real" ]; then
	echo "check_symbols: error: real libibverbs.so.1 not found (install libibverbs1 or set REAL_IBVERBS)" >&2
	exit 1
fi
command -v nm >/dev/null 2>&1 || { echo "check_symbols: error: nm (binutils) not found" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# "sym VERSION" for every default-versioned defined dynamic symbol of a library.
defaults() {
	nm -D --defined-only "$1" | awk '$3 ~ /@@/ { split($3, p, "@@"); print p[1], p[2] }' | sort
}
# Version node names a library defines (nm lists them as absolute "A" symbols).
nodes() {
	nm -D --defined-only "$1" | awk '$2 == "A" && $3 !~ /@/ { print $3 }' | sort
}

defaults "$real" > "$tmp/real.syms"
nodes "$real" > "$tmp/real.nodes"
if [ ! -s "$tmp/real.syms" ]; then
	echo "check_symbols: error: no versioned symbols in $real (nm too old? need binutils >= 2.35)" >&2
	exit 1
fi
if grep -q '^SOFTVERBS_' "$tmp/real.nodes"; then
	echo "check_symbols: error: $real is a softverbs build, not the real library" >&2
	exit 1
fi

# Parse a version script: drop /* */ comments, then emit "sym NODE" for each
# global symbol, and "NODE name" for each declared node.
parse_map() {
sed -e ':a' -e 's|/\*.*\*/||g' -e '/\/\*/{N;ba' -e '}' "$1" | awk '
	/^[A-Za-z_][A-Za-z0-9_.]*[ \t]*\{/ { node = $1; print "NODE", node; mode = "global"; next }
	/^[ \t]*global:/ { mode = "global"; next }
	/^[ \t]*local:/  { mode = "local"; next }
	/^[ \t]*\}/      { node = ""; next }
	node != "" && mode == "global" && /^[ \t]*[A-Za-z_][A-Za-z0-9_]*;/ {
		s = $1; sub(/;$/, "", s); print s, node
	}' "$1"
}
parse_map "$map" > "$tmp/map.all"
grep '^NODE ' "$tmp/map.all" | awk '{ print $2 }' | sort > "$tmp/map.nodes"
grep -v '^NODE ' "$tmp/map.all" | sort > "$tmp/map.syms"
[ -s "$tmp/map.syms" ] || { echo "check_symbols: error: no symbols parsed from $map" >&2; exit 1; }

# 1. map versions == real default versions
while read -r sym node; do
	case "$node" in SOFTVERBS_*) continue ;; esac
	want=$(awk -v s="$sym" '$1 == s { print $2 }' "$tmp/real.syms")
	if [ -z "$want" ]; then
		err "$sym@@$node in map, but the real library has no default version of $sym"
	elif [ "$want" != "$node" ]; then
		err "$sym is in $node in the map, but the real library's default is $sym@@$want"
	fi
done < "$tmp/map.syms"

# 2. every real version node is declared
for n in $(comm -23 "$tmp/real.nodes" "$tmp/map.nodes"); do
	err "version node $n of the real library is missing from the map"
done

nsyms=$(wc -l < "$tmp/map.syms")
nreal=$(awk '$2 !~ /^SOFTVERBS_/' "$tmp/map.syms" | wc -l)

# 3. the built shim exports exactly the map, all default-versioned
if [ -n "$shim" ]; then
	[ -e "$shim" ] || { echo "check_symbols: error: $shim not found" >&2; exit 1; }
	defaults "$shim" > "$tmp/shim.syms"
	if ! diff -u "$tmp/map.syms" "$tmp/shim.syms" > "$tmp/diff"; then
		err "exports of $shim differ from softverbs.map (- map, + shim):"
		sed -n '3,$p' "$tmp/diff" | grep '^[-+]' >&2 || true
	fi
	odd=$(nm -D --defined-only "$shim" | awk '$2 != "A" && $3 !~ /@@/ { print $3 }')
	[ -z "$odd" ] || err "non-default or unversioned exports in $shim: $odd"
	nodes "$shim" > "$tmp/shim.nodes"
	for n in $(comm -23 "$tmp/real.nodes" "$tmp/shim.nodes"); do
		err "$shim does not define version node $n"
	done
	for f in softverbs_set_deferred softverbs_pending softverbs_drain; do
		grep -q "^$f SOFTVERBS_1.0\$" "$tmp/shim.syms" || err "$f@@SOFTVERBS_1.0 not exported by $shim"
	done
fi

# The stand-in libmlx5: the same checks against the real libmlx5.so.1.
mlx5_map="$here/softverbs_mlx5.map"
real_mlx5="${REAL_MLX5:-}"
[ -n "$real_mlx5" ] || real_mlx5=$(ldconfig -p 2>/dev/null | awk '$1 == "libmlx5.so.1" { print $NF; exit }')
mlx5_note=""
if [ -z "$real_mlx5" ] || [ ! -e "$real_mlx5" ]; then
	[ -z "$mlx5_shim" ] || err "real libmlx5.so.1 not found (install libibverbs1 / ibverbs-providers or set REAL_MLX5)"
else
	defaults "$real_mlx5" > "$tmp/mreal.syms"
	nodes "$real_mlx5" > "$tmp/mreal.nodes"
	parse_map "$mlx5_map" > "$tmp/mmap.all"
	grep '^NODE ' "$tmp/mmap.all" | awk '{ print $2 }' | sort > "$tmp/mmap.nodes"
	grep -v '^NODE ' "$tmp/mmap.all" | sort > "$tmp/mmap.syms"
	[ -s "$tmp/mmap.syms" ] || err "no symbols parsed from $mlx5_map"
	while read -r sym node; do
		want=$(awk -v s="$sym" '$1 == s { print $2 }' "$tmp/mreal.syms")
		if [ "$want" != "$node" ]; then
			err "$sym is in $node in $mlx5_map, but the real libmlx5's default is ${want:-none}"
		fi
	done < "$tmp/mmap.syms"
	# every default export of the real library too: programs linked against it (perftest) must load
	for sym in $(comm -23 "$tmp/mreal.syms" "$tmp/mmap.syms" | awk '{ print $1 }'); do
		err "$sym (a default export of the real libmlx5) is missing from $mlx5_map"
	done
	for n in $(comm -23 "$tmp/mreal.nodes" "$tmp/mmap.nodes"); do
		err "version node $n of the real libmlx5 is missing from $mlx5_map"
	done
	if [ -n "$mlx5_shim" ]; then
		[ -e "$mlx5_shim" ] || { echo "check_symbols: error: $mlx5_shim not found" >&2; exit 1; }
		defaults "$mlx5_shim" > "$tmp/mshim.syms"
		if ! diff -u "$tmp/mmap.syms" "$tmp/mshim.syms" > "$tmp/mdiff"; then
			err "exports of $mlx5_shim differ from $mlx5_map (- map, + shim):"
			sed -n '3,$p' "$tmp/mdiff" | grep '^[-+]' >&2 || true
		fi
		odd=$(nm -D --defined-only "$mlx5_shim" | awk '$2 != "A" && $3 !~ /@@/ { print $3 }')
		[ -z "$odd" ] || err "non-default or unversioned exports in $mlx5_shim: $odd"
		nodes "$mlx5_shim" > "$tmp/mshim.nodes"
		for n in $(comm -23 "$tmp/mreal.nodes" "$tmp/mshim.nodes"); do
			err "$mlx5_shim does not define version node $n"
		done
	fi
	mlx5_note="; libmlx5: $(wc -l < "$tmp/mmap.syms") symbols, $(wc -l < "$tmp/mmap.nodes") nodes vs $real_mlx5${mlx5_shim:+, $mlx5_shim matches}"
fi

if [ "$fail" -ne 0 ]; then
	echo "check_symbols: FAILED (real library: $real)" >&2
	exit 1
fi
echo "check_symbols: OK: $nsyms symbols ($nreal with the real library's default versions, $(wc -l < "$tmp/map.nodes") version nodes) vs $real${shim:+; $shim matches}$mlx5_note"
