#!/usr/bin/env bash
# config-check.sh .config FRAGMENT...: fail, naming them, when options that a
# fragment asks for did not survive olddefconfig (a missing dependency).
set -euo pipefail

config=$1
shift
bad=0
while read -r want; do
	case $want in
	"# CONFIG_"*" is not set")
		opt=${want#\# }
		opt=${opt%% *}
		if grep -q "^$opt=" "$config"; then
			echo "config: $opt should be unset but is $(grep "^$opt=" "$config")" >&2
			bad=1
		fi
		;;
	CONFIG_*=*)
		if ! grep -qxF "$want" "$config"; then
			have=$(grep -E "^(# )?${want%%=*}[= ]" "$config" || echo "absent")
			echo "config: wanted $want, got: $have" >&2
			bad=1
		fi
		;;
	esac
done < <(cat "$@")
[ "$bad" = 0 ] || { echo "error: kernel config lost required options (see above)" >&2; exit 1; }
