package org.objrdma.itests.rdma;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.http.HttpResponse;
import java.util.EnumSet;
import java.util.Map;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.Gid;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.RemoteRegion;
import org.objrdma.api.transport.Transport;
import org.objrdma.client.RcTransfer;
import org.objrdma.itests.rdma.SignedHttp.Credential;
import org.objrdma.verbs.internal.StandaloneVerbs;
import org.objrdma.wire.CuObjDescriptor;
import org.objrdma.wire.RcTokenCodecs;

/**
 * The verbs side of {@link RdmaClientMain} (with {@code -Dobjrdma.it.client.verbs=<software device>}): a verbs
 * transport of its own on the software device's cross-process fabric for the RC transfers, the forged-memory rows,
 * the cuObject request a verbs-only client would make, and the device's live-object count for the audit.
 */
final class VerbsRows implements AutoCloseable {
    private final StandaloneVerbs verbs;
    private final SoftVerbsObjects objects;
    private String lastMemory = "";

    private VerbsRows(StandaloneVerbs verbs, SoftVerbsObjects objects) {
        this.verbs = verbs;
        this.objects = objects;
    }

    static VerbsRows open(String library) {
        return new VerbsRows(StandaloneVerbs.open(library, "softrc0"), SoftVerbsObjects.of(library));
    }

    Transport transport() {
        return verbs.transport();
    }

    /** A region the server was never granted: the rkey changed ({@code rkey}), or the bytes just past it ({@code addr}). */
    static RemoteRegion forged(RemoteRegion r, String forge) {
        return switch (forge) {
            case "rkey" -> new RemoteRegion(r.address(), r.length(), r.rkey() ^ 0x100);
            case "addr" -> new RemoteRegion(r.address() + r.length(), r.length(), r.rkey());
            default -> throw new IllegalArgumentException("--forge=rkey|addr, not " + forge);
        };
    }

    /** The GET token of {@code tr} naming forged memory instead of its grant. */
    static String forgedToken(RcTransfer tr, String forge) {
        return RcTokenCodecs.encode(tr.clientEndpoint(), forged(tr.clientRegion(), forge)).value().format();
    }

    /**
     * A cuObject GET or PUT as a client with only a verbs NIC makes it: the 81-hex descriptor names its memory (an
     * MR with remote access, as libcuobjclient registers it), LID 1 of softrc0 and a queue pair number in the DC
     * target field, no GID (InfiniBand). A PUT declined with {@code x-amz-rdma-reply: 501} is sent again over
     * plain HTTP with the same bytes, as the contract tells the client; {@link #lastMemory} then says how that went.
     */
    HttpResponse<byte[]> cuObjectOverVerbs(SignedHttp http, Credential who, String op, String path, int size, long seed)
            throws Exception {
        boolean get = op.equals("get");
        try (Arena arena = Arena.ofShared()) {
            MemorySegment memory = arena.allocate(size, 4096);
            byte[] bytes = RdmaClientMain.random(size, seed);
            if (!get) {
                MemorySegment.copy(bytes, 0, memory, ValueLayout.JAVA_BYTE, 0, size);
            }
            try (MemoryRegion region = transport().register(memory, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE,
                    Access.REMOTE_READ));
                 Channel target = transport().openChannel(ChannelOptions.DEFAULT)) {
                int qpn = (int) ((EndpointInfo.Verbs) target.localEndpoint()).qpn();
                String descriptor = new CuObjDescriptor(region.address(), size, region.rkey(), 1, qpn, false, Gid.ZERO)
                        .format();
                HttpResponse<byte[]> answer = http.send(who, get ? "GET" : "PUT", path, "", null,
                        Map.of("x-amz-rdma-token", descriptor), Map.of());
                lastMemory = "memcrc=" + RdmaClientMain.crc(memory, size);
                if (!get && "501".equals(answer.headers().firstValue("x-amz-rdma-reply").orElse(null))) {
                    lastMemory += " declinedHead=" + http.send(who, "HEAD", path, "", null, Map.of(), Map.of()).statusCode();
                    HttpResponse<byte[]> fallback = http.send(who, "PUT", path, "", bytes, Map.of(), Map.of());
                    lastMemory += " fallback=" + fallback.statusCode();
                }
                return answer;
            }
        }
    }

    /**
     * {@code memcrc=...} of the last cuObject request's memory; for a declined PUT also {@code declinedHead=status}
     * (HEAD of the key right after the decline) and {@code fallback=status} (the HTTP retry).
     */
    String lastMemory() {
        return lastMemory;
    }

    /** {@code OK qps=.. mrs=.. mws=.. bound=..}: this process's live objects on the device. */
    String liveObjects() {
        return "OK " + objects.describe();
    }

    @Override
    public void close() {
        verbs.close();
    }
}
