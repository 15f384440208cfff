#!/bin/sh
# help-compare.sh: capture every command's --help in English and Chinese, or
# compare a capture with the current tree byte for byte. Used to check that a
# change to how help text is written or built changes no output.
#
#   scripts/help-compare.sh capture DIR   # before the change
#   scripts/help-compare.sh diff DIR      # after: exit 1 on any difference
#
# The commands, hidden ones included, are listed by tools/helpcmds.
set -eu

mode=${1:-}
dir=${2:-}
case $mode in capture | diff) ;; *)
	echo "usage: $0 capture|diff DIR" >&2
	exit 2
	;;
esac
[ -n "$dir" ] || {
	echo "usage: $0 capture|diff DIR" >&2
	exit 2
}

root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bin=$work/tuneloop
(cd "$root" && nice -n 15 go build -o "$bin" ./cmd/tuneloop)

out=$work/help
mkdir -p "$out"

(cd "$root" && nice -n 15 go run ./tools/helpcmds) >"$work/commands"

n=0
while IFS= read -r cmd; do
	name=$(echo "root $cmd" | tr ' ' '_')
	# shellcheck disable=SC2086 # the command path is split on purpose
	LANG=C "$bin" $cmd --help >"$out/$name.en" 2>&1 || true
	# shellcheck disable=SC2086
	LANG=zh_CN.UTF-8 "$bin" $cmd --help >"$out/$name.zh" 2>&1 || true
	# shellcheck disable=SC2086
	LANG=C "$bin" $cmd --help --lang zh >"$out/$name.lang-zh" 2>&1 || true
	n=$((n + 1))
done <"$work/commands"

case $mode in
capture)
	rm -rf "$dir"
	mkdir -p "$dir"
	cp "$out"/* "$dir"/
	echo "captured --help of $n commands (en, LANG=zh, --lang zh) into $dir"
	;;
diff)
	if diff -r "$dir" "$out"; then
		echo "--help of $n commands identical to $dir (en, LANG=zh, --lang zh)"
	else
		echo "--help differs from $dir" >&2
		exit 1
	fi
	;;
esac
