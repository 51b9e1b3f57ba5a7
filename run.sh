#!/usr/bin/env bash
# Builds objrdma if needed and starts the Karaf distribution in the foreground: the fs object store, the TCP
# transport and the S3 gateway, with its console.
#   ./run.sh           interactive Karaf console (logout or Ctrl-D stops it)
#   ./run.sh server    no console; stop with Ctrl-C or bin/stop
# Before Karaf starts it prints the S3 endpoint and the credential to use. On the first start it generates
# the S3 credential (from /dev/urandom) into etc/org.objrdma.store.fs.cfg, and the password of the Karaf admin
# user karaf (ssh on 127.0.0.1:8101, JMX) into etc/users.properties; the password is printed that once and kept
# in target/run/admin.env.
# The distribution is unpacked under target/run/. Its data/ (logs, the object store under data/objrdma),
# the store's etc/org.objrdma.store.fs.cfg and etc/users.properties survive restarts and rebuilds;
# target/run/s3.env holds the credential as AWS_* variables; data/cache is dropped on a
# rebuild so the new bundles are the ones that run. Everything under target/run is its owner's only
# (umask 077: secrets 0600, directories 0700).
# The TLS material of the https endpoint goes into etc/tls/ (bin/objrdma-tls; it prints the CA file clients trust;
# OBJRDMA_HTTPS=off ./run.sh: no HTTPS).
# OBJRDMA_VERBS_DEVICE=softrc0 ./run.sh server: the verbs transport on the software RDMA device softrc0 (built into
# target/softverbs if needed; needs gcc and libibverbs-dev); prints the fabric directory and the LD_LIBRARY_PATH a
# client process of this user on this host must use (also in target/run/verbs.env). README "RDMA on the software device".
set -euo pipefail
cd "$(dirname "$0")"
# Checked before anything is built, unpacked or written: a bad value changes nothing.
verbs_device=${OBJRDMA_VERBS_DEVICE:-off}
case "$verbs_device" in
    off|softrc0) ;;
    *)
        echo "run.sh: OBJRDMA_VERBS_DEVICE must be softrc0 (the software RDMA device run.sh builds) or off, was" \
            "'$verbs_device'; for an RDMA NIC configure etc/org.objrdma.verbs.cfg instead (bundles/objrdma-verbs/README.md)" >&2
        exit 2
        ;;
esac
. scripts/jdk.sh
objrdma_select_jdk

version=$(sed -n 's:^  <version>\(.*\)</version>:\1:p' pom.xml | head -1)
dist="karaf-distribution/target/objrdma-karaf-distribution-${version}.tar.gz"

needs_build() {
    [ ! -f "$dist" ] && return 0
    # rebuild when any tracked source is newer than the distribution
    [ -n "$(find pom.xml bundles features karaf-distribution/src karaf-distribution/pom.xml jdk25-agent \
        -newer "$dist" -type f ! -path '*/target/*' -print -quit 2>/dev/null)" ]
}

if needs_build; then
    # The whole reactor: the distribution also takes the JDK 25 agent, which is no Maven dependency of it.
    # maven.test.skip also skips building the software verbs test device, so running needs no gcc.
    echo "objrdma: building (tests skipped; ./test.sh runs them)"
    ./mvnw -B -ntp -q install -Dmaven.test.skip=true
fi

home="target/run/objrdma-karaf-distribution-${version}"
# Created owner-only from here on (the unpacked distribution, its secrets, s3.env, admin.env): the mode is
# the umask's at creation, never a chmod after a secret is already in a file.
umask 077
mkdir -p target/run
store_cfg="etc/org.objrdma.store.fs.cfg"
if [ ! -d "$home" ] || [ "$dist" -nt "$home" ]; then
    fresh="target/run/.unpack.$$"
    rm -rf "$fresh"
    mkdir -p "$fresh"
    # not the archive's modes (tar keeps them for root): the umask's
    tar xzf "$dist" -C "$fresh" --no-same-permissions
    new_home="$fresh/objrdma-karaf-distribution-${version}"
    if [ -d "$home" ]; then
        # keep what the user made: the object store, logs, the store's credential
        [ -d "$home/data" ] && { rm -rf "$new_home/data"; mv "$home/data" "$new_home/data"; rm -rf "$new_home/data/cache" "$new_home/data/tmp"; }
        [ -f "$home/$store_cfg" ] && cp "$home/$store_cfg" "$new_home/$store_cfg"
        [ -f "$home/etc/users.properties" ] && cp "$home/etc/users.properties" "$new_home/etc/users.properties"
        # the TLS material clients already trust (HTTPS block below)
        [ -d "$home/etc/tls" ] && cp -a "$home/etc/tls" "$new_home/etc/tls"
        rm -rf "$home"
    fi
    mv "$new_home" "$home"
    rm -rf "$fresh"
    touch "$home"
fi

# The S3 credential: the store's own property, credentials = ACCESSKEY:SECRET[,...].
cfg_value() { # file key -> value of "key = value" (last one wins), or nothing
    [ -f "$1" ] && sed -n "s/^[[:space:]]*$2[[:space:]]*[=:][[:space:]]*//p" "$1" | tail -1 | sed 's/[[:space:]]*$//'
    return 0
}
credentials=$(cfg_value "$home/$store_cfg" credentials)
if [ -z "$credentials" ]; then
    access_key=$(head -c 64 /dev/urandom | base32 | tr -dc 'A-Z0-9' | head -c 20)
    secret_key=$(head -c 96 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' | head -c 40)
    touch "$home/$store_cfg"
    chmod go-rwx "$home/$store_cfg" # a file of an older run.sh may be wider; narrowed before the secret goes in
    # drop an empty "credentials =" line the distribution may ship, then add ours
    sed -i '/^[[:space:]]*credentials[[:space:]]*[=:]/d' "$home/$store_cfg"
    printf 'credentials = %s:%s\n' "$access_key" "$secret_key" >> "$home/$store_cfg"
    credentials="$access_key:$secret_key"
    echo "objrdma: generated an S3 credential into $home/$store_cfg"
fi
first=${credentials%%,*}
access_key=${first%%:*}
secret_key=${first#*:}
# The Karaf admin (ssh, JMX): the distribution ships no user; the first start adds karaf with a password from
# /dev/urandom to etc/users.properties (0600) and keeps a copy in target/run/admin.env (0600). A karaf line the
# user wrote is kept as it is, except the stock karaf/karaf that distributions before issue 24 shipped.
users="$home/etc/users.properties"
admin_password=""
if ! grep -Eq '^[[:space:]]*karaf[[:space:]]*=' "$users" 2>/dev/null \
        || grep -Eq '^[[:space:]]*karaf[[:space:]]*=[[:space:]]*karaf[[:space:]]*(,|$)' "$users"; then
    admin_password=$(head -c 96 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' | head -c 24)
    touch "$users"
    chmod go-rwx "$users" # as for the store's file: narrowed before the password goes in
    sed -i -E '/^[[:space:]]*karaf[[:space:]]*=/d' "$users"
    printf 'karaf = %s,_g_:admingroup\n' "$admin_password" >> "$users"
    rm -f target/run/admin.env
    printf 'export KARAF_USER=karaf\nexport KARAF_PASSWORD=%s\n' "$admin_password" > target/run/admin.env
fi
# The RDMA walk-through on this one machine (README "RDMA walk-through"): bin/objrdma's memory agent listens on
# 127.0.0.1, and the cuObject facade and the session manager refuse client addresses on loopback unless
# allow.addresses lists them (a client must not steer the server into dialing this host's own services). This dev
# demo's TCP transport listens on 127.0.0.1 only, so it allows 127.0.0.0/8; a deployment reachable from other hosts
# drops that (delete the line). The gateway's cuObject routes dial the agent with the requesting principal's own
# key (AgentKeys.forPrincipal), so no shared agent.key is written. A value the user set is kept.
allow_loopback() {
    local file=$1
    if [ -f "$file" ] && grep -Eq '^[[:space:]]*allow\.addresses[[:space:]]*=[[:space:]]*[^[:space:]]' "$file"; then
        return
    fi
    if [ -f "$file" ]; then
        sed -i -E '/^[[:space:]]*allow\.addresses[[:space:]]*=/d' "$file"
    fi
    printf '# written by run.sh for the single-machine demo (see run.sh)\nallow.addresses = 127.0.0.0/8\n' >> "$file"
}
allow_loopback "$home/etc/org.objrdma.cuobj.cfg"
allow_loopback "$home/etc/org.objrdma.session.cfg"
port=$(cfg_value "$home/etc/org.ops4j.pax.web.cfg" org.osgi.service.http.port)
port=${port:-8181}
ssh_port=$(cfg_value "$home/etc/org.apache.karaf.shell.cfg" sshPort)

# --- HTTPS (README "HTTPS") -------------------------------------------------------------------------------------
# The S3 port over TLS: bin/objrdma-tls generates (only what is missing) a CA and a server keystore for 127.0.0.1 and
# localhost under etc/tls/ (secrets 0600, the password only in etc/tls/keystore.password) and turns Pax Web's secure
# connector on; plain HTTP stays where it was. OBJRDMA_HTTPS=off ./run.sh leaves HTTPS off. A keystore of your own:
# README "HTTPS".
https_line=""
https_env=""
if [ "${OBJRDMA_HTTPS:-on}" != off ]; then
    ca_file=$("$home/bin/objrdma-tls")
    https_port=$(cfg_value "$home/etc/org.ops4j.pax.web.cfg" org.osgi.service.http.port.secure)
    https_port=${https_port:-8443}
    https_line="objrdma: S3 over TLS   https://127.0.0.1:${https_port}   CA file ${ca_file}  (aws --ca-bundle, bin/objrdma --ca-bundle)"
    https_env="export S3_HTTPS_ENDPOINT=https://127.0.0.1:${https_port}
export S3_CA_BUNDLE=${ca_file}"
elif [ -f "$home/etc/org.ops4j.pax.web.cfg" ]; then # off: also when an earlier start turned it on
    sed -i -E 's/^([[:space:]]*org\.osgi\.service\.http\.secure\.enabled[[:space:]]*[=:]).*$/\1 false/' \
        "$home/etc/org.ops4j.pax.web.cfg"
fi
# --- end HTTPS ----------------------------------------------------------------------------------------------------

# --- the software RDMA device (README "RDMA on the software device") ---------------------------------------------
# OBJRDMA_VERBS_DEVICE=softrc0: bundles/objrdma-verbs/src/test/native/build.sh builds the device (a drop-in
# libibverbs.so.1) into target/softverbs when it is missing or older than its sources; etc/org.objrdma.verbs.cfg
# gets library.path (that file, loaded by path) and device.name = softrc0 under a marker line (a library.path or
# device.name of the user's is commented out meanwhile; other keys stay); Karaf inherits SOFTVERBS_FABRIC, the
# directory that makes every process of this user that loads the device one fabric. A start without the switch
# removes the marked lines and restores the user's.
verbs_cfg="$home/etc/org.objrdma.verbs.cfg"
verbs_marker="# written by run.sh for OBJRDMA_VERBS_DEVICE=softrc0 (a start without it removes this line and the next two)"
verbs_kept="#kept while OBJRDMA_VERBS_DEVICE=softrc0# "
drop_verbs_lines() { # the marker and the two lines run.sh wrote under it
    [ -f "$verbs_cfg" ] && sed -i '/^# written by run\.sh for OBJRDMA_VERBS_DEVICE=softrc0/,+2d' "$verbs_cfg"
    return 0
}
verbs_info=""
rm -f target/run/verbs.env
if [ "$verbs_device" = softrc0 ]; then
    sv_src=bundles/objrdma-verbs/src/test/native
    sv_dir="$PWD/target/softverbs"
    if [ ! -f "$sv_dir/libibverbs.so.1" ] || [ ! -f "$sv_dir/libmlx5.so.1" ] \
            || [ -n "$(find "$sv_src" -newer "$sv_dir/libibverbs.so.1" -type f -print -quit)" ]; then
        echo "objrdma: building the software RDMA device softrc0 into target/softverbs (log: target/softverbs.log)"
        if ! sh "$sv_src/build.sh" "$sv_dir" > target/softverbs.log 2>&1; then
            grep -E 'error|not found' target/softverbs.log | head -5 >&2
            echo "run.sh: building the software RDMA device failed (needs gcc and libibverbs-dev); see target/softverbs.log" >&2
            exit 1
        fi
    fi
    # the device's own default when unset (softverbs_fabric.c): /dev/shm/softverbs-<uid>, /tmp/... without /dev/shm
    if [ -z "${SOFTVERBS_FABRIC:-}" ]; then
        if [ -d /dev/shm ]; then SOFTVERBS_FABRIC="/dev/shm/softverbs-$(id -u)"; else SOFTVERBS_FABRIC="/tmp/softverbs-$(id -u)"; fi
    fi
    export SOFTVERBS_FABRIC
    drop_verbs_lines
    [ -f "$verbs_cfg" ] && sed -i -E "s/^([[:space:]]*(library\.path|device\.name)[[:space:]]*[=:])/${verbs_kept}\1/" "$verbs_cfg"
    printf '%s\nlibrary.path = %s\ndevice.name = softrc0\n' "$verbs_marker" "$sv_dir/libibverbs.so.1" >> "$verbs_cfg"
    link_layer_env=""
    [ -n "${SOFTVERBS_LINK_LAYER:-}" ] && link_layer_env="export SOFTVERBS_LINK_LAYER=${SOFTVERBS_LINK_LAYER}"
    cat > target/run/verbs.env <<ENV
export LD_LIBRARY_PATH=${sv_dir}
export SOFTVERBS_FABRIC=${SOFTVERBS_FABRIC}
${link_layer_env}
ENV
    verbs_info="objrdma: verbs device  softrc0, the software RDMA device ${sv_dir}/libibverbs.so.1: transport verbs:softrc0 ranked above TCP
objrdma: RDMA fabric   ${SOFTVERBS_FABRIC}   (SOFTVERBS_FABRIC; link layer ${SOFTVERBS_LINK_LAYER:-infiniband}, SOFTVERBS_LINK_LAYER=ethernet for a RoCE port)
objrdma: RDMA clients  LD_LIBRARY_PATH=${sv_dir} SOFTVERBS_FABRIC=${SOFTVERBS_FABRIC}   (any process of this user on this host: . target/run/verbs.env; ibv_devinfo -v lists softrc0 and its GIDs)"
else
    drop_verbs_lines
    [ -f "$verbs_cfg" ] && sed -i "s/^${verbs_kept}//" "$verbs_cfg"
fi
# --- end software RDMA device -------------------------------------------------------------------------------------

# for the README walk-through: ". target/run/s3.env" sets what the aws CLI and curl need; written anew (an
# older s3.env may have been created wider than 0600, and a rewrite in place would keep its mode)
rm -f target/run/s3.env
cat > target/run/s3.env <<ENV
export AWS_ACCESS_KEY_ID=${access_key}
export AWS_SECRET_ACCESS_KEY=${secret_key}
export AWS_DEFAULT_REGION=us-east-1
export S3_ENDPOINT=http://127.0.0.1:${port}
export AWS_ENDPOINT_URL=http://127.0.0.1:${port}
${https_env}
ENV
cat <<INFO
objrdma: S3 endpoint   http://127.0.0.1:${port}   (region us-east-1, path style)
${https_line:-objrdma: S3 over TLS   off (OBJRDMA_HTTPS=off)}
objrdma: access key    ${access_key}
objrdma: secret key    ${secret_key}
objrdma: environment   target/run/s3.env  (. target/run/s3.env; /usr/bin/aws --endpoint-url \$S3_ENDPOINT s3 ls)
INFO
[ -n "$verbs_info" ] && printf '%s\n' "$verbs_info"
if [ -n "$admin_password" ]; then
    cat <<INFO
objrdma: Karaf admin   user karaf, password ${admin_password}   (generated now, printed this once; kept in target/run/admin.env)
INFO
else
    cat <<INFO
objrdma: Karaf admin   user karaf, password in target/run/admin.env (or as you set it in etc/users.properties)
INFO
fi
cat <<INFO
objrdma: admin plane   ssh -p ${ssh_port:-8101} karaf@127.0.0.1, JMX and the S3 port listen on 127.0.0.1 only (README "Opening the admin plane and the S3 port")
objrdma: starting Karaf in $home (JDK $(objrdma_java_feature "$JAVA_HOME/bin/java"))
INFO
cd "$home"
exec bin/karaf "$@"
