# shellcheck shell=bash
# chromium.sh - headless Chromium with its sandbox, as root too.
#
# The pages rendered here (decks, the interactive figure) carry numbers
# and labels from a results file, which anyone may have written: the
# renderer that reads them must stay in Chromium's sandbox. Chromium
# refuses to run as root unless told --no-sandbox, so as root it runs as
# an unprivileged user (nobody, or PATHLAB_CHROMIUM_USER) with its own
# namespace and seccomp sandbox on. That user cannot read root's files:
# the folder of the page is copied into a folder of its own first (links
# copied as links, not followed), and what Chromium writes (a screenshot,
# a PDF) is copied out by root without following a link either.
#
# Public: chromium_bin, chromium_run. Sourced by labs/lib/slides.sh and
# the figure and deck tests.

# Print the headless Chromium binary, or nothing (status 1).
chromium_bin() {
	local c
	for c in ${CHROMIUM:-} chromium chromium-browser google-chrome; do
		if command -v "$c" >/dev/null 2>&1; then
			command -v "$c"
			return 0
		fi
	done
	return 1
}

# chromium_run URL [FLAG...]: render file://PAGE[#frag] with Chromium's
# sandbox on; --screenshot=FILE and --print-to-pdf=FILE land at FILE,
# --dump-dom on stdout. Status: Chromium's, 77 without Chromium or an
# unprivileged user to run it as.
chromium_run() {
	local url=$1 bin page frag stage rc a i user=${PATHLAB_CHROMIUM_USER:-nobody}
	local args=() outs=() as=()
	shift
	bin=$(chromium_bin) || return 77
	page=${url#file://}
	frag=
	if [[ $page == *"#"* ]]; then
		frag="#${page#*"#"}"
		page=${page%%"#"*}
	fi
	stage=$(mktemp -d "${TMPDIR:-/tmp}/pathlab-chromium.XXXXXX") || return 1
	chmod 755 "$stage"
	mkdir "$stage/page" "$stage/out" "$stage/home"
	cp -R --no-dereference -- "$(dirname -- "$page")/." "$stage/page/" &&
		chmod -R a+rX "$stage/page" || { rm -rf "$stage"; return 1; }
	if [ "$(id -u)" -eq 0 ]; then
		if ! id -u "$user" >/dev/null 2>&1; then
			echo "chromium: no user $user to run it as, unprivileged" >&2
			rm -rf "$stage"
			return 77
		fi
		chown "$user:" "$stage/out" "$stage/home"
		as=(setpriv --reuid="$user" --regid="$(id -g "$user")"
			--clear-groups --inh-caps=-all --)
	fi
	for a in "$@"; do
		case $a in
		--screenshot=* | --print-to-pdf=*)
			outs+=("${a#*=}")
			args+=("${a%%=*}=$stage/out/${#outs[@]}.${a##*.}") ;;
		--no-sandbox) ;; # never
		*) args+=("$a") ;;
		esac
	done
	timeout -k 5 120 "${as[@]}" env -i PATH=/usr/bin:/bin \
		HOME="$stage/home" TMPDIR="$stage/home" LANG=C.UTF-8 \
		"$bin" --headless --disable-gpu --disable-dev-shm-usage \
		--no-first-run --disable-background-networking \
		--disable-component-update --disable-sync \
		--user-data-dir="$stage/home/profile" "${args[@]}" \
		"file://$stage/page/$(basename -- "$page")$frag"
	rc=$?
	for i in "${!outs[@]}"; do
		a=$stage/out/$((i + 1)).${outs[$i]##*.}
		# What the unprivileged user wrote, never through a link.
		[ -f "$a" ] && [ ! -L "$a" ] && dd if="$a" of="${outs[$i]}" \
			iflag=nofollow status=none 2>/dev/null
	done
	rm -rf "$stage"
	return $rc
}

# Run as a command: bash chromium.sh run URL [FLAG...] (for labs/lib/docs.py).
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	case ${1:-} in
	run) shift; chromium_run "$@" ;;
	*) echo "usage: chromium.sh run URL [FLAG...]" >&2; exit 2 ;;
	esac
	exit $?
fi
