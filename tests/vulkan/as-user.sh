#!/bin/sh
# as-user.sh COMMAND ARGS...: run a command in the guest as an ordinary
# user (uid 65534, "app"), after the boot step attached the GPUs, with
# what a distribution's udev rules give a desktop user: render nodes for
# everyone, and (for lavapipe's sync_file export) udmabuf to the render
# group, which the user is in.
mvgal-info --attach >/dev/null 2>&1
grep -q '^app:' /etc/passwd 2>/dev/null || {
	echo "render:x:109:app" >>/etc/group
	echo "app:x:65534:65534::/tmp:/bin/sh" >>/etc/passwd
}
chmod 1777 /tmp
chmod 0666 /dev/dri/renderD*
chgrp 109 /dev/udmabuf && chmod 0660 /dev/udmabuf
cmd=""
for a in "$@"; do
	cmd="$cmd '$(printf '%s' "$a" | sed "s/'/'\\\\''/g")'"
done
exec su app -s /bin/sh -c "$cmd"
