package org.objrdma.cuobj;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.objrdma.wire.AddressPolicy;
import org.objrdma.wire.DialPacing;
import org.objrdma.wire.AgentKeys;
import org.objrdma.wire.TokenResult;

/**
 * {@code cuObjRDMATunable}: the server's tunables with NVIDIA's setter and getter names. As in C the setters
 * store what they are given; the server validates at session start ({@link #validate()}), and a server with a
 * bad value does not start ({@code isConnected()} is false, the reason is logged).
 *
 * <table>
 * <caption>Fields, defaults, and what the TCP path does with them</caption>
 * <tr><th>field</th><th>default</th><th>valid</th><th>effect on the TCP path</th></tr>
 * <tr><td>num_dcis</td><td>128</td><td>1..65535</td><td>number of channels</td></tr>
 * <tr><td>cq_depth</td><td>640</td><td>1..65536</td><td>send queue depth of each connection to a client agent:
 *     async requests outstanding on one client at once</td></tr>
 * <tr><td>dc_key</td><td>0xffeeddcc</td><td>any</td><td>only with {@link #setAgentKeyFromDcKey}(true)</td></tr>
 * <tr><td>ibv_poll_max_comp_event</td><td>16 (objrdma's; NVIDIA: "not used")</td><td>≥ 1</td><td>none</td></tr>
 * <tr><td>service_level</td><td>0</td><td>0..15</td><td>none (verbs path attribute)</td></tr>
 * <tr><td>timeout</td><td>16</td><td>0..31</td><td>none (verbs ACK timeout exponent)</td></tr>
 * <tr><td>hop_limit</td><td>4</td><td>0..255</td><td>none</td></tr>
 * <tr><td>pkey_index</td><td>0</td><td>0..65535</td><td>none</td></tr>
 * <tr><td>max_wr</td><td>128 (objrdma's; NVIDIA: "not used")</td><td>≥ 1</td><td>none</td></tr>
 * <tr><td>max_sge</td><td>10 (objrdma's; NVIDIA's default not published)</td><td>1..1024</td><td>most registered
 *     entries a transferred buffer may have, else -EIO</td></tr>
 * <tr><td>delay_interval</td><td>5000 ns</td><td>0..2^32-1</td><td>accepted; completions wake the caller</td></tr>
 * <tr><td>delay_mode</td><td>CUOBJ_DELAY_BATCH</td><td>not INVALID</td><td>accepted, as delay_interval</td></tr>
 * <tr><td>qp_reset_on_failure</td><td>true</td><td>any</td><td>a failed connection is always dropped and
 *     redialed on next use (the TCP equivalent of a reset); reported only</td></tr>
 * <tr><td>retry_cnt</td><td>7</td><td>0..7</td><td>none</td></tr>
 * <tr><td>traffic_class</td><td>96</td><td>0..255</td><td>none</td></tr>
 * <tr><td>max_rd_atomic</td><td>0 (auto)</td><td>0..255</td><td>none</td></tr>
 * </table>
 *
 * <p><b>objrdma extensions.</b> {@link #setAgentKey(byte[])} (16..64 bytes): the key the server presents to
 * client memory agents, the stand-in for the DC key (a 32-bit DC key is too weak to be an access key). A server
 * uses one from here, from the DS component (the C-style constructors in the container), or — for deployments that configure only a
 * DC key — derived from {@code dc_key} with {@link #setAgentKeyFromDcKey(boolean)} (as weak as the DC key).
 * {@link #setTransferTimeoutMs} (default 60000) bounds each transfer; {@link #setConnectionCacheSize}
 * (default 256) bounds the connections to client agents kept open (least recently used dropped first).
 * The 2.x tunables {@code proto} and {@code drain_wait_ms} are stored and reported only.
 */
public final class CuObjRDMATunable {
    private int numDcis = CuObj.DEFAULT_NUM_DCIS;
    private long cqDepth = 640;
    private long dcKey = 0xffeeddccL;
    private int ibvPollMaxCompEv = 16;
    private int serviceLevel;
    private int timeout = 16;
    private long hopLimit = 4;
    private int pkeyIndex;
    private int maxWr = 128;
    private int maxSge = 10;
    private long delayInterval = 5000;
    private CuObjDelayMode delayMode = CuObjDelayMode.CUOBJ_DELAY_BATCH;
    private boolean qpResetOnFailure = true;
    private int retryCount = 7;
    private long trafficClass = 96;
    private int maxRdAtomic;
    private int proto = CuObj.CUOBJ_PROTO_RDMA_DC_V1;
    private long drainWaitMs;
    private byte[] agentKey;
    private boolean agentKeyFromDcKey;
    private long transferTimeoutMs = 60_000;
    private int connectionCacheSize = 256;
    private String allowAddresses = "";
    private String denyAddresses = "";
    private long dialFailureDelayMs = DialPacing.DEFAULT_DELAY_MS;

    /** The defaults. */
    public CuObjRDMATunable() {
    }

    /** A copy of {@code other}. */
    public CuObjRDMATunable(CuObjRDMATunable other) {
        numDcis = other.numDcis;
        cqDepth = other.cqDepth;
        dcKey = other.dcKey;
        ibvPollMaxCompEv = other.ibvPollMaxCompEv;
        serviceLevel = other.serviceLevel;
        timeout = other.timeout;
        hopLimit = other.hopLimit;
        pkeyIndex = other.pkeyIndex;
        maxWr = other.maxWr;
        maxSge = other.maxSge;
        delayInterval = other.delayInterval;
        delayMode = other.delayMode;
        qpResetOnFailure = other.qpResetOnFailure;
        retryCount = other.retryCount;
        trafficClass = other.trafficClass;
        maxRdAtomic = other.maxRdAtomic;
        proto = other.proto;
        drainWaitMs = other.drainWaitMs;
        agentKey = other.agentKey == null ? null : other.agentKey.clone();
        agentKeyFromDcKey = other.agentKeyFromDcKey;
        transferTimeoutMs = other.transferTimeoutMs;
        connectionCacheSize = other.connectionCacheSize;
        allowAddresses = other.allowAddresses;
        denyAddresses = other.denyAddresses;
        dialFailureDelayMs = other.dialFailureDelayMs;
    }

    public void setNumDcis(int v) { numDcis = v; }
    public int getNumDcis() { return numDcis; }
    public void setCqDepth(long v) { cqDepth = v; }
    public long getCqDepth() { return cqDepth; }
    public void setDcKey(long v) { dcKey = v; }
    public long getDcKey() { return dcKey; }
    public void setIbvPollMaxCompEv(int v) { ibvPollMaxCompEv = v; }
    public int getIbvPollMaxCompEv() { return ibvPollMaxCompEv; }
    public void setServiceLevel(int v) { serviceLevel = v; }
    public int getServiceLevel() { return serviceLevel; }
    public void setTimeout(int v) { timeout = v; }
    public int getTimeout() { return timeout; }
    public void setHopLimit(long v) { hopLimit = v; }
    public long getHopLimit() { return hopLimit; }
    public void setPkeyIndex(int v) { pkeyIndex = v; }
    public int getPkeyIndex() { return pkeyIndex; }
    public void setMaxWr(int v) { maxWr = v; }
    public int getMaxWr() { return maxWr; }
    public void setMaxSge(int v) { maxSge = v; }
    public int getMaxSge() { return maxSge; }
    public void setDelayInterval(long nanos) { delayInterval = nanos; }
    public long getDelayInterval() { return delayInterval; }
    public void setDelayMode(CuObjDelayMode v) { delayMode = v; }
    public CuObjDelayMode getDelayMode() { return delayMode; }
    public void setQPResetOnFailure(boolean v) { qpResetOnFailure = v; }
    public boolean getQPResetOnFailure() { return qpResetOnFailure; }
    public void setRetryCount(int v) { retryCount = v; }
    public int getRetryCount() { return retryCount; }
    public void setTrafficClass(long v) { trafficClass = v; }
    public long getTrafficClass() { return trafficClass; }
    public void setMaxRdAtomic(int v) { maxRdAtomic = v; }
    public int getMaxRdAtomic() { return maxRdAtomic; }
    /** 2.x: stored and reported only. */
    public void setProto(int v) { proto = v; }
    public int getProto() { return proto; }
    /** 2.x: stored and reported only (the multi-VIP path it serves does not exist here). */
    public void setDrainWaitMs(long v) { drainWaitMs = v; }
    public long getDrainWaitMs() { return drainWaitMs; }

    /** objrdma: the agent key (16..64 bytes, copied), or null to take it from elsewhere (class comment). */
    public void setAgentKey(byte[] key) { agentKey = key == null ? null : key.clone(); }
    /** A copy of the agent key, or null. */
    public byte[] getAgentKey() { return agentKey == null ? null : agentKey.clone(); }
    /** objrdma: derive the agent key from {@code dc_key} ({@link AgentKeys#fromDcKey}); weak, for compatibility. */
    public void setAgentKeyFromDcKey(boolean v) { agentKeyFromDcKey = v; }
    public boolean isAgentKeyFromDcKey() { return agentKeyFromDcKey; }
    /** objrdma: longest a transfer (connect included) may take before it fails with RESP_TIMEOUT_ERR. */
    public void setTransferTimeoutMs(long v) { transferTimeoutMs = v; }
    public long getTransferTimeoutMs() { return transferTimeoutMs; }
    /** objrdma: most connections to client agents kept open. */
    public void setConnectionCacheSize(int v) { connectionCacheSize = v; }
    public int getConnectionCacheSize() { return connectionCacheSize; }
    /**
     * objrdma: CIDR blocks (comma- or space-separated literals, e.g. {@code 127.0.0.0/8,::1}) of addresses a
     * descriptor may name although the server's address policy refuses them: loopback, unspecified, link-local,
     * multicast, broadcast and reserved blocks, the server host's own addresses, IPv4 carried in IPv6 judged as
     * IPv4, and the deny list ({@link org.objrdma.wire.AddressPolicy}). Empty (the default): none of those is dialed.
     */
    public void setAllowAddresses(String cidrs) { allowAddresses = cidrs == null ? "" : cidrs.strip(); }
    public String getAllowAddresses() { return allowAddresses; }
    /**
     * objrdma: CIDR blocks a descriptor may not name, and the word {@code private} (10.0.0.0/8, 172.16.0.0/12,
     * 192.168.0.0/16, 100.64.0.0/10, fc00::/7); the allow list is the exception. Empty (the default): none.
     */
    public void setDenyAddresses(String cidrs) { denyAddresses = cidrs == null ? "" : cidrs.strip(); }
    public String getDenyAddresses() { return denyAddresses; }
    /**
     * objrdma: a dial of a client agent is cut off after this long, and a failed one answers ({@code -EIO},
     * RETRY_EXC_ERR, one text) only once this long has passed since it began ({@link DialPacing}).
     */
    public void setDialFailureDelayMs(long v) { dialFailureDelayMs = v; }
    public long getDialFailureDelayMs() { return dialFailureDelayMs; }

    /**
     * Every value a server cannot start with, one sentence each starting with the field's C name (the
     * configuration property is the same name with dots); empty when all are valid.
     */
    public List<String> validate() {
        List<String> bad = new ArrayList<>();
        check(bad, numDcis >= 1 && numDcis <= 0xFFFF, "num_dcis must be 1..65535, was " + numDcis);
        check(bad, cqDepth >= 1 && cqDepth <= 65536, "cq_depth must be 1..65536, was " + cqDepth);
        check(bad, ibvPollMaxCompEv >= 1, "ibv_poll_max_comp_event must be at least 1, was " + ibvPollMaxCompEv);
        check(bad, serviceLevel >= 0 && serviceLevel <= 15, "service_level must be 0..15, was " + serviceLevel);
        check(bad, timeout >= 0 && timeout <= 31, "timeout must be 0..31, was " + timeout);
        check(bad, hopLimit >= 0 && hopLimit <= 255, "hop_limit must be 0..255, was " + hopLimit);
        check(bad, pkeyIndex >= 0 && pkeyIndex <= 0xFFFF, "pkey_index must be 0..65535, was " + pkeyIndex);
        check(bad, maxWr >= 1, "max_wr must be at least 1, was " + maxWr);
        check(bad, maxSge >= 1 && maxSge <= 1024, "max_sge must be 1..1024, was " + maxSge);
        check(bad, delayInterval >= 0 && delayInterval <= 0xFFFF_FFFFL,
                "delay_interval must be 0..4294967295 ns, was " + delayInterval);
        check(bad, delayMode != null && delayMode != CuObjDelayMode.CUOBJ_DELAY_INVALID,
                "delay_mode must be NONE, BATCH, ENTRY or ADAPTIVE, was " + delayMode);
        check(bad, retryCount >= 0 && retryCount <= 7, "retry_cnt must be 0..7, was " + retryCount);
        check(bad, trafficClass >= 0 && trafficClass <= 255, "traffic_class must be 0..255, was " + trafficClass);
        check(bad, maxRdAtomic >= 0 && maxRdAtomic <= 255, "max_rd_atomic must be 0..255 (0 = auto), was " + maxRdAtomic);
        check(bad, drainWaitMs >= 0, "drain_wait_ms must not be negative, was " + drainWaitMs);
        check(bad, agentKey == null || (agentKey.length >= AgentKeys.MIN_LENGTH && agentKey.length <= AgentKeys.MAX_LENGTH),
                "agent_key must be 16..64 bytes, was " + (agentKey == null ? 0 : agentKey.length));
        check(bad, transferTimeoutMs >= 1 && transferTimeoutMs <= 86_400_000L,
                "transfer_timeout_ms must be 1..86400000, was " + transferTimeoutMs);
        check(bad, connectionCacheSize >= 1 && connectionCacheSize <= 65536,
                "connection_cache_size must be 1..65536, was " + connectionCacheSize);
        TokenResult<AddressPolicy> policy = AddressPolicy.parse(allowAddresses, null, Set::of);
        check(bad, policy.isOk(), "allow_addresses is not a list of literal CIDR blocks: " + policy.detail());
        if (policy.isOk()) {
            policy = AddressPolicy.parse(allowAddresses, denyAddresses, Set::of);
            check(bad, policy.isOk(), "deny_addresses is not a list of literal CIDR blocks or the word private: "
                    + policy.detail());
        }
        String delay = DialPacing.problem(dialFailureDelayMs);
        check(bad, delay == null, "dial_failure_delay_ms must be " + DialPacing.MIN_DELAY_MS + ".."
                + DialPacing.MAX_DELAY_MS + ", was " + dialFailureDelayMs);
        return bad;
    }

    private static void check(List<String> bad, boolean ok, String message) {
        if (!ok) {
            bad.add(message);
        }
    }

    /** Copies every C field into {@code param}. */
    void copyInto(CuObjRDMATunableParam p) {
        p.num_dcis = numDcis;
        p.cq_depth = cqDepth;
        p.dc_key = dcKey;
        p.ibv_poll_max_comp_event = ibvPollMaxCompEv;
        p.service_level = serviceLevel;
        p.timeout = timeout;
        p.hop_limit = hopLimit;
        p.pkey_index = pkeyIndex;
        p.max_wr = maxWr;
        p.max_sge = maxSge;
        p.delay_interval = delayInterval;
        p.delay_mode = delayMode;
        p.qp_reset_on_failure = qpResetOnFailure;
        p.retry_cnt = retryCount;
        p.traffic_class = trafficClass;
        p.max_rd_atomic = maxRdAtomic;
    }

    /** Never prints the agent key. */
    @Override
    public String toString() {
        return "CuObjRDMATunable[num_dcis " + numDcis + ", cq_depth " + cqDepth + ", max_sge " + maxSge
                + ", delay " + delayMode + "/" + delayInterval + " ns, qp_reset " + qpResetOnFailure
                + ", agent key " + (agentKey != null ? "given" : agentKeyFromDcKey ? "from dc_key" : "none")
                + ", transfer timeout " + transferTimeoutMs + " ms, connections " + connectionCacheSize
                + ", allow addresses [" + allowAddresses + "], deny addresses [" + denyAddresses
                + "], failed dial delay " + dialFailureDelayMs + " ms]";
    }
}
