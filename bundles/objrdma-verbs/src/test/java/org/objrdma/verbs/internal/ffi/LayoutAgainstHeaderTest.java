package org.objrdma.verbs.internal.ffi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The FFM layouts against what gcc says through the installed {@code <infiniband/verbs.h>}: every offset and
 * size the bindings hard-code, every enum value, and the reference table the bundle checks at activation.
 */
class LayoutAgainstHeaderTest {

    @Test
    void everyJavaFactMatchesTheHeader() throws Exception {
        Map<String, Long> c = LayoutTool.facts();
        List<String> problems = new ArrayList<>();
        int checked = 0;
        for (GroupLayout g : IbvLayouts.ALL) {
            for (Map.Entry<String, Long> e : IbvLayouts.facts(g).entrySet()) {
                Long expected = resolve(e.getKey(), c);
                if (expected == null && isGroupWithoutCKey(e.getKey())) {
                    continue; // e.g. ibv_send_wr.wr.rdma: C prints its members, not the inner struct
                }
                if (expected == null) {
                    problems.add(e.getKey() + ": the C side has no such member");
                } else if (!expected.equals(e.getValue())) {
                    problems.add(e.getKey() + ": java " + e.getValue() + ", C " + expected);
                } else {
                    checked++;
                }
            }
        }
        assertTrue(problems.isEmpty(), "layout mismatches:\n" + String.join("\n", problems));
        assertTrue(checked > 300, "too few facts compared: " + checked);
    }

    @Test
    void everyHeaderFactOfAModelledStructMatchesJava() throws Exception {
        Map<String, Long> java = IbvLayouts.allFacts();
        List<String> problems = new ArrayList<>();
        for (Map.Entry<String, Long> e : LayoutTool.facts().entrySet()) {
            String key = e.getKey();
            String struct = key.startsWith("sizeof.") ? key.substring(7, key.indexOf('.', 7)) : key.split("\\.")[0];
            boolean modelled = IbvLayouts.ALL.stream().anyMatch(g -> g.name().orElseThrow().equals(struct));
            if (modelled && !e.getValue().equals(java.get(key))) {
                problems.add(key + ": C " + e.getValue() + ", java " + java.get(key));
            }
        }
        assertTrue(problems.isEmpty(), "members the header has that Java lacks or places elsewhere:\n"
                + String.join("\n", problems));
    }

    @Test
    void dataPathSlotsAreWhereTheSpecSaysTheyAre() {
        // the four function pointers Java reads from ibv_context (verbs.md §1)
        assertEquals(96, DataPath.POLL_CQ_OFFSET);
        assertEquals(104, DataPath.REQ_NOTIFY_CQ_OFFSET);
        assertEquals(208, DataPath.POST_SEND_OFFSET);
        assertEquals(216, DataPath.POST_RECV_OFFSET);
        assertEquals(48, IbvLayouts.offset(IbvLayouts.IBV_PORT_ATTR, "port_cap_flags2"));
        assertEquals(IbvLayouts.COMPAT_PORT_ATTR_SIZE, IbvLayouts.offset(IbvLayouts.IBV_PORT_ATTR, "port_cap_flags2"));
    }

    @Test
    void everyConstantMatchesTheHeader() throws Exception {
        Map<String, Long> c = LayoutTool.facts();
        List<String> problems = new ArrayList<>();
        int checked = 0;
        for (Field f : IbvConstants.class.getDeclaredFields()) {
            if (!Modifier.isStatic(f.getModifiers()) || f.getType() != int.class) {
                continue;
            }
            Long expected = c.get(f.getName());
            int actual = f.getInt(null);
            if (expected == null) {
                problems.add(f.getName() + ": not printed by layout.c");
            } else if (expected != actual) {
                problems.add(f.getName() + ": java " + actual + ", C " + expected);
            } else {
                checked++;
            }
        }
        assertTrue(problems.isEmpty(), String.join("\n", problems));
        assertTrue(checked >= 50, "constants compared: " + checked);
    }

    @Test
    void theReferenceTableShippedInTheBundleIsWhatTheHeaderSays() throws Exception {
        Map<String, Long> reference = IbvLayouts.reference();
        Map<String, Long> c = LayoutTool.facts();
        List<String> problems = new ArrayList<>();
        for (Map.Entry<String, Long> e : c.entrySet()) {
            if (!e.getValue().equals(reference.get(e.getKey()))) {
                problems.add(e.getKey() + ": header " + e.getValue() + ", reference " + reference.get(e.getKey()));
            }
        }
        assertTrue(problems.isEmpty(), "regenerate " + IbvLayouts.REFERENCE_RESOURCE
                + " from target/softverbs/layout:\n" + String.join("\n", problems));
    }

    @Test
    void theActivationCheckPassesHereAndCatchesADrift() {
        assertEquals(List.of(), IbvLayouts.mismatchesAgainstReference());
        // a layout with one field moved must be reported by the same comparison
        Map<String, Long> drifted = new java.util.HashMap<>(IbvLayouts.reference());
        drifted.put("ibv_send_wr.wr.rdma.rkey", 52L);
        List<String> found = IbvLayouts.compare(IbvLayouts.allFacts(), drifted);
        assertEquals(List.of("ibv_send_wr.wr.rdma.rkey: java 48, C 52"), found);
        drifted.remove("ibv_wc.size");
        assertFalse(IbvLayouts.compare(IbvLayouts.allFacts(), drifted).stream().noneMatch(p -> p.contains("ibv_wc.size")));
    }

    /**
     * The C value of a Java key. layout.c does not print every nested member (e.g. the GRH inside alt_ah_attr);
     * such a key resolves through the nested struct's own facts: offset of the member + offset inside its type.
     */
    private static Long resolve(String key, Map<String, Long> c) {
        if (c.containsKey(key)) {
            return c.get(key);
        }
        boolean sizeOf = key.startsWith("sizeof.");
        String path = sizeOf ? key.substring(7) : key;
        String[] parts = path.split("\\.");
        GroupLayout outer = byName(parts[0]);
        if (outer == null) {
            return null;
        }
        // find the first member whose type is a modelled struct and recurse into it
        MemoryLayout current = outer;
        for (int i = 1; i < parts.length - 1; i++) {
            MemoryLayout member = member((GroupLayout) current, parts[i]);
            if (member == null) {
                return null;
            }
            GroupLayout type = typeOf(member);
            if (type != null) {
                String prefix = String.join(".", java.util.Arrays.copyOfRange(parts, 0, i + 1));
                String rest = String.join(".", java.util.Arrays.copyOfRange(parts, i + 1, parts.length));
                String typeName = type.name().orElseThrow();
                if (sizeOf) {
                    return resolve("sizeof." + typeName + "." + rest, c);
                }
                Long base = c.get(prefix);
                Long inner = resolve(typeName + "." + rest, c);
                return base == null || inner == null ? null : base + inner;
            }
            current = member;
        }
        return null;
    }

    /** True if {@code key} names an inner struct or union (not a top-level type), whose members are checked. */
    private static boolean isGroupWithoutCKey(String key) {
        String path = key.startsWith("sizeof.") ? key.substring(7) : key;
        String[] parts = path.split("\\.");
        MemoryLayout current = byName(parts[0]);
        for (int i = 1; i < parts.length && current instanceof GroupLayout g; i++) {
            current = member(g, parts[i]);
        }
        return current instanceof GroupLayout && typeOf(current) == null;
    }

    private static GroupLayout byName(String name) {
        return IbvLayouts.ALL.stream().filter(g -> g.name().orElseThrow().equals(name)).findFirst().orElse(null);
    }

    /** The member named {@code name}, looking through anonymous unions. */
    private static MemoryLayout member(GroupLayout g, String name) {
        for (MemoryLayout m : g.memberLayouts()) {
            String n = m.name().orElse("");
            if (n.equals(name)) {
                return m;
            }
            if (n.startsWith("anon_") && m instanceof GroupLayout anon) {
                MemoryLayout inner = member(anon, name);
                if (inner != null) {
                    return inner;
                }
            }
        }
        return null;
    }

    /** The modelled top-level struct {@code member} is an instance of, if any. */
    private static GroupLayout typeOf(MemoryLayout member) {
        for (GroupLayout g : IbvLayouts.ALL) {
            if (member.withoutName().equals(g.withoutName())) {
                return g;
            }
        }
        return null;
    }
}
