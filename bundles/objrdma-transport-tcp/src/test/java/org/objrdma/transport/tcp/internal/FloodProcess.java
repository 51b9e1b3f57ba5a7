package org.objrdma.transport.tcp.internal;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The flooding host of {@link PeerLimitsTest#silentSocketFloodFromAnotherProcessCostsTheServerOnlyItsShare}, in a JVM of its own: opens {@code count} TCP connections
 * from {@code bindAddress} to {@code host:port}, says nothing on any of them, prints {@code connected <n>} and
 * holds them until its standard input ends (the test closes it, or dies).
 *
 * <p>Arguments: {@code host port count bindAddress}.
 */
public final class FloodProcess {
    private FloodProcess() {
    }

    public static void main(String[] args) throws Exception {
        InetSocketAddress target = new InetSocketAddress(args[0], Integer.parseInt(args[1]));
        int count = Integer.parseInt(args[2]);
        InetSocketAddress from = new InetSocketAddress(args[3], 0);
        List<SocketChannel> held = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            SocketChannel sc = SocketChannel.open();
            sc.setOption(StandardSocketOptions.SO_LINGER, 0);
            sc.bind(from);
            sc.connect(target); // the kernel completes it; the agent may close it at once
            held.add(sc);
        }
        System.out.println("connected " + held.size());
        System.out.flush();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            while (in.readLine() != null) {
                // hold the sockets until the test lets go
            }
        }
        for (SocketChannel sc : held) {
            sc.close();
        }
    }
}
