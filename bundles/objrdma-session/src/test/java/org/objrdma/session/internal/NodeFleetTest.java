package org.objrdma.session.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.objrdma.api.PrincipalId;
import org.objrdma.api.session.Op;
import org.objrdma.api.session.PrepareRequest;
import org.objrdma.api.session.SessionId;
import org.objrdma.testsupport.FakeTransport;

/** Node identity and the fleet list of PID {@code org.objrdma.session}: parsing, refusals, tagged session ids. */
class NodeFleetTest {
    private static final String NODES = "a=http://10.0.0.1:8181, b=https://gw-b.example:8443/,c=http://[::1]:9000";

    @Test
    void everyNodeKnowsTheOthersByTheirTagButNotItself() {
        NodeFleet a = NodeFleet.parse("a", NODES);
        NodeFleet b = NodeFleet.parse("b", NODES);
        SessionId ofB = new SessionId(NodeFleet.tag("b") + "0".repeat(24));
        SessionId ofA = new SessionId(NodeFleet.tag("a") + "0".repeat(24));
        assertEquals(Optional.of(URI.create("https://gw-b.example:8443")), a.foreignOwner(ofB), "trailing / dropped");
        assertEquals(Optional.empty(), b.foreignOwner(ofB), "its own session is local");
        assertEquals(Optional.of(URI.create("http://10.0.0.1:8181")), b.foreignOwner(ofA));
        assertEquals(Optional.of(URI.create("http://[::1]:9000")), a.foreignOwner(
                new SessionId(NodeFleet.tag("c") + "f".repeat(24))));
        assertEquals(Optional.empty(), a.foreignOwner(new SessionId(NodeFleet.tag("zz") + "0".repeat(24))),
                "an unknown tag is not redirected");
        assertEquals(Optional.empty(), NodeFleet.NONE.foreignOwner(ofB));
        assertNotEquals(NodeFleet.tag("a"), NodeFleet.tag("b"));
        assertEquals(NodeFleet.TAG_HEX, NodeFleet.tag("a").length());
        assertEquals("a", NodeFleet.parse(" a ", "").nodeId(), "a node alone: tagged ids, nobody to redirect to");
    }

    @Test
    void stampKeepsTheOtherNinetySixBitsRandom() {
        NodeFleet a = NodeFleet.parse("a", "");
        Set<String> tails = new HashSet<>();
        RandomSource random = RandomSource.secure();
        for (int i = 0; i < 100; i++) {
            byte[] bits = new byte[16];
            random.nextBytes(bits);
            a.stamp(bits);
            String hex = java.util.HexFormat.of().formatHex(bits);
            assertTrue(hex.startsWith(NodeFleet.tag("a")), hex);
            tails.add(hex.substring(NodeFleet.TAG_HEX));
        }
        assertEquals(100, tails.size());
        byte[] untouched = {1, 2, 3, 4, 5};
        NodeFleet.NONE.stamp(untouched);
        assertEquals("0102030405", java.util.HexFormat.of().formatHex(untouched));
    }

    @Test
    void badConfigurationIsRefusedNamingTheProperty() {
        Map<String[], String> bad = Map.ofEntries(
                Map.entry(new String[] {"", "a=http://h:1"}, "nodes is set but node.id is not"),
                Map.entry(new String[] {"a b", ""}, "node.id: node id 'a b'"),
                Map.entry(new String[] {"x".repeat(65), ""}, "node.id: node id"),
                Map.entry(new String[] {"a", "a=http://h:1,b"}, "nodes: 'b' is not id=url"),
                Map.entry(new String[] {"a", "a=http://h:1,b/=http://h:2"}, "nodes: node id 'b/'"),
                Map.entry(new String[] {"a", "a=ftp://h:1"}, "nodes: the endpoint of 'a' must be http(s)"),
                Map.entry(new String[] {"a", "a=http://h:1/path"}, "nodes: the endpoint of 'a' must be"),
                Map.entry(new String[] {"a", "a=http://h:1?q=1"}, "nodes: the endpoint of 'a' must be"),
                Map.entry(new String[] {"a", "a=http://u:p@h:1"}, "nodes: the endpoint of 'a' must be"),
                Map.entry(new String[] {"a", "a=/relative"}, "nodes: the endpoint of 'a' must be"),
                Map.entry(new String[] {"a", "a=http://h:1 %zz"}, "nodes: '%zz' is not id=url"),
                Map.entry(new String[] {"a", "a=http://h :1"}, "nodes: ':1' is not id=url"),
                Map.entry(new String[] {"a", "a=http://h^:1"}, "nodes: the endpoint of 'a' is not a URL"),
                Map.entry(new String[] {"a", "a=http://h:1,a=http://h:2"}, "nodes: node 'a' is listed twice"),
                Map.entry(new String[] {"c", "a=http://h:1,b=http://h:2"}, "nodes does not list this node 'c'"));
        for (Map.Entry<String[], String> e : bad.entrySet()) {
            IllegalArgumentException x = assertThrows(IllegalArgumentException.class,
                    () -> NodeFleet.parse(e.getKey()[0], e.getKey()[1]), e.getValue());
            assertTrue(x.getMessage().startsWith(e.getValue()), x.getMessage() + " / expected " + e.getValue());
        }
    }

    @Test
    void theComponentTagsItsSessionIdsAndAnswersForeignOwners() {
        FakeTransport t = new FakeTransport("t");
        FakeStagingPool pool = new FakeStagingPool(t, 1 << 20);
        SessionManagerComponent component = new SessionManagerComponent();
        component.bindTransport(t);
        component.bindStagingPool(pool);
        component.activate(SessionSettingsTest.config(Map.of("control.plane.only", true, "node.id", "b",
                "nodes", NODES)));
        SessionId id = component.prepare(new PrepareRequest(PrincipalId.fromCanonical("u:s"), Op.GET, "/k/v", 0, 64,
                1, 1, null, null)).orElseThrow().sessionId();
        assertTrue(id.hex().startsWith(NodeFleet.tag("b")), id.hex());
        assertEquals(Optional.empty(), component.foreignOwner(id));
        assertEquals(Optional.of(URI.create("http://10.0.0.1:8181")),
                component.foreignOwner(new SessionId(NodeFleet.tag("a") + id.hex().substring(8))));
        component.deactivate();
        pool.close();

        SessionManagerComponent refused = new SessionManagerComponent();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> refused.activate(
                SessionSettingsTest.config(Map.of("node.id", "d", "nodes", NODES))));
        assertTrue(e.getMessage().contains("nodes does not list this node 'd'"), e.getMessage());
    }
}
