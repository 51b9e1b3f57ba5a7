package org.objrdma.transport.tcp.internal;

import java.net.InetSocketAddress;
import java.util.Arrays;

/**
 * One end of a channel as the wire names it: the agent's advertised socket address and the channel number
 * there. Ordered, so that two channels that dial each other at the same time agree on whose connection
 * survives (the lower side's dial wins, see {@link TcpChannel}).
 *
 * @param address   resolved agent address
 * @param channelId channel number on that agent
 */
record PeerIdentity(InetSocketAddress address, long channelId) implements Comparable<PeerIdentity> {

    PeerIdentity {
        if (address.isUnresolved()) {
            address = new InetSocketAddress(address.getHostString(), address.getPort());
        }
    }

    @Override
    public int compareTo(PeerIdentity o) {
        byte[] mine = address.getAddress() == null ? new byte[0] : address.getAddress().getAddress();
        byte[] theirs = o.address.getAddress() == null ? new byte[0] : o.address.getAddress().getAddress();
        int c = Integer.compare(mine.length, theirs.length);
        if (c == 0) {
            c = Arrays.compareUnsigned(mine, theirs);
        }
        if (c == 0) {
            c = Integer.compare(address.getPort(), o.address.getPort());
        }
        return c != 0 ? c : Long.compare(channelId, o.channelId);
    }

    @Override
    public String toString() {
        return address + "#" + channelId;
    }
}
