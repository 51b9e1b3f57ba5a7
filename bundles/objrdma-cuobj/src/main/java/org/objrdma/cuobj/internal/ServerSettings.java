package org.objrdma.cuobj.internal;

import java.util.List;
import java.util.Locale;
import org.objrdma.wire.AgentKeys;
import org.objrdma.wire.TokenResult;
import org.objrdma.cuobj.CuObjDelayMode;
import org.objrdma.cuobj.CuObjRDMATunable;

/**
 * The validated configuration of the DS component: an immutable value built by {@link #from}, which throws
 * {@link IllegalArgumentException} naming the first bad property; nothing partial is built.
 *
 * @param ip                literal server address
 * @param port              server port
 * @param proto             cuObjProto_t value
 * @param tunable           the tunables, agent key included (a fresh copy per call of {@link #tunable()})
 * @param telemetryFlags    CUOBJ_LOG_PATH_* bits
 * @param telemetryOpFlags  CUOBJ_LOG_OP_* bits
 */
public record ServerSettings(String ip, int port, int proto, CuObjRDMATunable tunable, int telemetryFlags,
                             int telemetryOpFlags) {

    @Override
    public CuObjRDMATunable tunable() {
        return new CuObjRDMATunable(tunable);
    }

    /** Validates {@code c}; throws naming the first bad property. */
    public static ServerSettings from(CuObjServerConfig c) {
        String ip = c.ip() == null ? "" : c.ip().strip();
        require(Addresses.isLiteral(ip), "ip", ip, "must be a literal IPv4 or IPv6 address (IPv6 without brackets)");
        require(c.port() >= 0 && c.port() <= 65535, "port", c.port(), "must be 0..65535");
        CuObjRDMATunable t = new CuObjRDMATunable();
        t.setProto(c.proto());
        t.setNumDcis(c.num_dcis());
        t.setCqDepth(c.cq_depth());
        t.setDcKey(parseDcKey(c.dc_key()));
        t.setIbvPollMaxCompEv(c.ibv_poll_max_comp_event());
        t.setServiceLevel(c.service_level());
        t.setTimeout(c.timeout());
        t.setHopLimit(c.hop_limit());
        t.setPkeyIndex(c.pkey_index());
        t.setMaxWr(c.max_wr());
        t.setMaxSge(c.max_sge());
        t.setDelayInterval(c.delay_interval());
        t.setDelayMode(parseDelayMode(c.delay_mode()));
        t.setQPResetOnFailure(c.qp_reset_on_failure());
        t.setRetryCount(c.retry_cnt());
        t.setTrafficClass(c.traffic_class());
        t.setMaxRdAtomic(c.max_rd_atomic());
        t.setTransferTimeoutMs(c.transfer_timeout_ms());
        t.setConnectionCacheSize(c.connection_cache_size());
        t.setAllowAddresses(c.allow_addresses());
        t.setDenyAddresses(c.deny_addresses());
        t.setDialFailureDelayMs(c.dial_failure_delay_ms());
        String key = c.agent_key() == null ? "" : c.agent_key().strip();
        if (!key.isEmpty()) {
            TokenResult<byte[]> parsed = AgentKeys.parse(key);
            if (!parsed.isOk()) {
                throw new IllegalArgumentException("agent.key is invalid: " + parsed.detail());
            }
            t.setAgentKey(parsed.value());
        } else if (c.agent_key_from_dc_key()) {
            t.setAgentKeyFromDcKey(true);
        }
        // neither: per-principal mode, no shared key (the CuObjPrincipal overloads, which the S3 routes use, only)
        List<String> bad = t.validate();
        if (!bad.isEmpty()) {
            // each sentence starts with the field's C name; the property is the same name with dots
            String first = bad.get(0);
            int space = first.indexOf(' ');
            throw new IllegalArgumentException(first.substring(0, space).replace('_', '.') + first.substring(space));
        }
        require(c.telemetry_flags() >= 0 && c.telemetry_flags() <= 7, "telemetry.flags", c.telemetry_flags(), "must be 0..7");
        require(c.telemetry_op_flags() >= 0 && c.telemetry_op_flags() <= 3, "telemetry.op.flags",
                c.telemetry_op_flags(), "must be 0..3");
        return new ServerSettings(ip, c.port(), c.proto(), t, c.telemetry_flags(), c.telemetry_op_flags());
    }

    private static long parseDcKey(String text) {
        String v = text == null ? "" : text.strip();
        try {
            if (v.regionMatches(true, 0, "0x", 0, 2)) {
                return Long.parseUnsignedLong(v.substring(2), 16);
            }
            return Long.parseUnsignedLong(v);
        } catch (NumberFormatException e) {
            // not echoed: with agent.key.from.dc.key the DC key is the agent key's secret, and a typo in it still is
            throw new IllegalArgumentException("dc.key must be a decimal or 0x-hex unsigned number (the value is not shown)");
        }
    }

    private static CuObjDelayMode parseDelayMode(String text) {
        String v = text == null ? "" : text.strip().toUpperCase(Locale.ROOT);
        if (!v.startsWith("CUOBJ_DELAY_")) {
            v = "CUOBJ_DELAY_" + v;
        }
        for (CuObjDelayMode m : CuObjDelayMode.values()) {
            if (m.name().equals(v) && m != CuObjDelayMode.CUOBJ_DELAY_INVALID) {
                return m;
            }
        }
        throw new IllegalArgumentException("delay.mode must be CUOBJ_DELAY_NONE, _BATCH, _ENTRY or _ADAPTIVE, was '"
                + text + "'");
    }

    private static void require(boolean ok, String name, Object value, String rule) {
        if (!ok) {
            throw new IllegalArgumentException(name + " " + rule + ", was " + value);
        }
    }
}
