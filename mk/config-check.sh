#!/usr/bin/env bash
# config-check.sh .config FRAGMENT...: fail, naming them, when options that the
# fragments ask for did not survive olddefconfig (a missing dependency).  As in
# merge_config.sh, a later fragment's setting of an option replaces an earlier
# one's.
set -euo pipefail

config=$1
shift
declare -A want
order=()
while read -r line; do
	case $line in
	"# CONFIG_"*" is not set") opt=${line#\# } opt=${opt%% *} ;;
	CONFIG_*=*) opt=${line%%=*} ;;
	*) continue ;;
	esac
	[ -n "${want[$opt]+set}" ] || order+=("$opt")
	want[$opt]=$line
done < <(cat "$@")

bad=0
for opt in "${order[@]}"; do
	line=${want[$opt]}
	case $line in
	"# "*)
		if grep -q "^$opt=" "$config"; then
			echo "config: $opt should be unset but is $(grep "^$opt=" "$config")" >&2
			bad=1
		fi
		;;
	*)
		if ! grep -qxF "$line" "$config"; then
			have=$(grep -E "^(# )?$opt[= ]" "$config" || echo "absent")
			echo "config: wanted $line, got: $have" >&2
			bad=1
		fi
		;;
	esac
done
[ "$bad" = 0 ] || { echo "error: kernel config lost required options (see above)" >&2; exit 1; }
