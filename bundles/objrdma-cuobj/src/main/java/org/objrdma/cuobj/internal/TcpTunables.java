package org.objrdma.cuobj.internal;

import java.time.Duration;
import java.util.List;
import org.objrdma.cuobj.CuObjRDMATunable;

/**
 * What the cuObject tunables mean on the TCP transport, the only transport that serves the facade's flow. Two have a
 * TCP counterpart and are applied: {@code timeout} and {@code retry_cnt} bound the dial of a client agent the way
 * they bound an RC connection's retransmissions (ack timeout 4.096 µs × 2^timeout, retried {@code retry_cnt} times:
 * the dial may take (retry_cnt + 1) × 4.096 µs × 2^timeout, at most the transfer timeout; {@code timeout} 0 means
 * "infinite" in verbs and leaves only the transfer timeout). The verbs QP and CQ attributes have no TCP
 * counterpart and are reported as ignored, once, when a server's session starts.
 */
public final class TcpTunables {
    /** InfiniBand's local ACK timeout unit: 4.096 µs, in nanoseconds. */
    private static final double ACK_UNIT_NANOS = 4096;

    private TcpTunables() {
    }

    /** How long dialing a client agent may take under {@code p} (validated tunables). */
    public static Duration dialTimeout(CuObjRDMATunable p) {
        Duration transfer = Duration.ofMillis(p.getTransferTimeoutMs());
        if (p.getTimeout() == 0) {
            return transfer;
        }
        double nanos = ACK_UNIT_NANOS * Math.pow(2, p.getTimeout()) * (p.getRetryCount() + 1);
        Duration d = Duration.ofNanos((long) Math.min(nanos, Long.MAX_VALUE));
        Duration atLeast = d.compareTo(Duration.ofMillis(1)) < 0 ? Duration.ofMillis(1) : d;
        return atLeast.compareTo(transfer) > 0 ? transfer : atLeast;
    }

    /** The tunables that change nothing on TCP, as {@code name=value}, in the order of the README table. */
    public static List<String> ignored(CuObjRDMATunable p) {
        return List.of("service_level=" + p.getServiceLevel(), "hop_limit=" + p.getHopLimit(),
                "pkey_index=" + p.getPkeyIndex(), "traffic_class=" + p.getTrafficClass(),
                "max_rd_atomic=" + p.getMaxRdAtomic(), "max_wr=" + p.getMaxWr(),
                "ibv_poll_max_comp_event=" + p.getIbvPollMaxCompEv(), "delay_interval=" + p.getDelayInterval(),
                "delay_mode=" + p.getDelayMode(), "qp_reset_on_failure=" + p.getQPResetOnFailure());
    }
}
