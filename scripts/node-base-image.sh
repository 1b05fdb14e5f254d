#!/usr/bin/env bash
# node-base-image.sh TAG: makes a Debian Node 20 base image without a registry, for machines (like
# this project's CI) that can run podman but reach no image registry. It is Debian bookworm's
# minimal system (`debootstrap --variant=minbase`) plus this machine's Node.js and npm, imported
# with `podman import` as TAG: what `node:20-bookworm-slim` is (Debian, node, npm, no compiler).
# An image already tagged TAG is kept (debootstrap takes minutes). The Containerfile takes it as
# `--build-arg NODE_IMAGE=TAG`.
set -euo pipefail
tag=${1:?usage: node-base-image.sh TAG}
podman=(podman ${PODMAN_ARGS:-})
if "${podman[@]}" image exists "$tag"; then echo "node-base-image: $tag exists"; exit 0; fi
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
node_bin=$(command -v node)
node_bin=$(readlink -f "$node_bin")
npm_dir=$(dirname "$(readlink -f "$(command -v npm)")")/..
npm_dir=$(cd "$npm_dir" && pwd)
work=$(mktemp -d /var/tmp/node-base.XXXXXX)
trap 'rm -rf "$work"' EXIT
rootfs=$work/rootfs
debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 || { cat "$work/debootstrap.log" >&2; exit 1; }
install -D -m 0755 "$node_bin" "$rootfs/usr/local/bin/node"
mkdir -p "$rootfs/usr/local/lib/node_modules"
cp -a "$npm_dir" "$rootfs/usr/local/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
# node:*-slim's non-root user (uid 1000) and a clean image: no apt lists, no caches.
chroot "$rootfs" /usr/sbin/groupadd --gid 1000 node
chroot "$rootfs" /usr/sbin/useradd --uid 1000 --gid node --shell /bin/bash --create-home node
rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/cache/apt/archives/*.deb
tar -C "$rootfs" -c . | "${podman[@]}" import --change 'CMD ["node"]' --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' - "$tag" >/dev/null
echo "node-base-image: $tag from $(node --version) on debian bookworm minbase"
