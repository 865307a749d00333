#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A results file is data: whoever wrote it cannot put HTML, a script, a
# link or an image into a deck. Builds two decks and the index from a
# results.json whose strings (host.cpu_model, a run's mode and
# copies_source) hold an <img> with an onerror script, a <script>, a
# Markdown image of a local file (which --embed-resources would inline),
# a raw-HTML code span and table pipes; every one must come out as text.
# The plots of the checked-in set are put beside it, so no plot is drawn.
# Exit 77 without pandoc or jq. About 10 s.
set -u
ROOT=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
for tool in pandoc jq; do
	command -v "$tool" >/dev/null 2>&1 ||
		{ echo "SKIP: $tool is not installed"; exit 77; }
done
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fails=0
bad() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

secret=$tmp/secret.svg
printf '<svg xmlns="http://www.w3.org/2000/svg"><text>PATHLAB-SECRET-%s</text></svg>\n' \
	$$ >"$secret"
evil="<img src=x onerror=alert(1)><script>alert(2)</script>![s]($secret)"
evil+='`<b>raw</b>`{=html} [link](file:///etc/hostname) a|b'
mkdir "$tmp/set"
jq --arg evil "$evil" '.host.cpu_model = $evil
	| .runs |= map(if .path == "socket" then .mode = "recvmmsg" + $evil
		| .copies_source = $evil else . end)' \
	"$ROOT/slides/results/default.json" >"$tmp/set/results.json" || exit 99
cp "$ROOT"/slides/results/*.svg "$ROOT"/slides/results/*.png "$tmp/set/" 2>/dev/null
if ! bash "$ROOT/labs/lib/slides.sh" build --results "$tmp/set/results.json" \
	--out "$tmp/out" --no-pdf --decks 02,07 >"$tmp/log" 2>&1; then
	cat "$tmp/log"
	bad "the decks did not build"
fi
b64=$(base64 -w0 "$secret" | cut -c1-24)
n=0
for f in "$tmp"/out/02-*.html "$tmp"/out/07-*.html "$tmp/out/index.html"; do
	[ -s "$f" ] || { bad "$f was not built"; continue; }
	n=$((n + 1))
	name=${f##*/}
	# pandoc wraps lines: the text is looked for across them.
	tr '\n' ' ' <"$f" | grep -q '&lt;img src=x onerror=alert(1)&gt;' ||
		bad "$name: the hostile text is not there, escaped"
	if grep -qE '<[a-z][^>]*onerror' "$f"; then
		bad "$name: an element with onerror: $(grep -oE '<[a-z][^>]*onerror[^>]*>' "$f" | head -1)"
	fi
	grep -q '<script>alert' "$f" && bad "$name: a script from the data"
	grep -q '<b>raw</b>' "$f" && bad "$name: raw HTML from a code span"
	grep -qF "$b64" "$f" && bad "$name: the local file was inlined"
	grep -q 'PATHLAB-SECRET' "$f" && bad "$name: the local file's text is in it"
	grep -q 'href="file:///etc/hostname"' "$f" && bad "$name: a link from the data"
	grep -oE '<img [^>]*src="[^"]{0,40}' "$f" | grep -v 'src="data:image/' |
		while read -r img; do echo "FAIL: $name: an image from elsewhere: $img"; done |
		grep . && bad "$name: images not ours"
done
[ "$n" -eq 3 ] || bad "$n of 3 pages checked"
echo "$n pages checked, $fails failures"
[ "$fails" -eq 0 ]
