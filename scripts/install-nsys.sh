#!/usr/bin/env bash
# install-nsys.sh installs NVIDIA Nsight Systems (the `nsys` CLI) from Debian bookworm's
# non-free component, idempotently. It exits 0 at once when nsys is already available
# (on PATH or under /usr/lib/nsight-systems). Needs root (or sudo) and apt.
#
# Debian packages Nsight Systems 2022.4 as `nsight-systems`; it runs without a GPU
# (`nsys profile --trace=osrt` of CPU processes, `nsys stats`), which llmcap's
# profiles tests use.
set -euo pipefail

have_nsys() {
	command -v nsys >/dev/null 2>&1 && return 0
	[ -x /usr/lib/nsight-systems/bin/nsys ] && return 0
	[ -x /usr/lib/nsight-systems/host-linux-x64/nsys ] && return 0
	return 1
}

# link_importer makes Debian's layout work for interactive sessions: its nsys resolves
# to /usr/lib/x86_64-linux-gnu/nsight-systems/target-linux-x64/nsys and looks for
# QdstrmImporter in ../host-linux-x64, which Debian installs under /usr/lib/nsight-systems.
# Without it `nsys profile` leaves a .qdstrm and `nsys stop` hangs.
link_importer() {
	local tdir=/usr/lib/x86_64-linux-gnu/nsight-systems
	local host=/usr/lib/nsight-systems/host-linux-x64
	if [ -d "$tdir/target-linux-x64" ] && [ -x "$host/QdstrmImporter" ] && [ ! -e "$tdir/host-linux-x64" ]; then
		echo "install-nsys: linking $tdir/host-linux-x64 -> $host"
		${SUDO:-} ln -s "$host" "$tdir/host-linux-x64"
	fi
}

if have_nsys; then
	[ "$(id -u)" -eq 0 ] && link_importer
	echo "install-nsys: nsys already installed: $(command -v nsys || echo /usr/lib/nsight-systems)"
	exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1; then
		SUDO="sudo"
	else
		echo "install-nsys: need root or sudo to install nsight-systems" >&2
		exit 1
	fi
fi

# installable reports whether apt already knows a candidate for PKG.
installable() {
	apt-cache policy "$1" 2>/dev/null | grep -Eq 'Candidate: [^(]'
}

# nsight-systems is in non-free; its libcuda1 dependency chain (nvidia-alternative →
# glx-alternative-nvidia) needs contrib too. Add both unless apt already sees them.
LIST=/etc/apt/sources.list.d/llmcap-non-free.sources
if ! { installable nsight-systems && installable glx-alternative-nvidia; } && [ ! -f "$LIST" ]; then
	echo "install-nsys: adding bookworm contrib/non-free source $LIST"
	$SUDO tee "$LIST" >/dev/null <<'SRC'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: contrib non-free
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends nsight-systems

if ! have_nsys; then
	echo "install-nsys: nsight-systems installed but nsys not found" >&2
	exit 1
fi
link_importer
echo "install-nsys: installed $(command -v nsys || echo /usr/lib/nsight-systems/bin/nsys)"
