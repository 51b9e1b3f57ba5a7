package org.objrdma.verbs.internal.ffi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.objrdma.api.transport.Mtu;
import org.objrdma.api.transport.Opcode;
import org.objrdma.api.transport.WcOpcode;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.verbs.LinkLayer;
import org.objrdma.verbs.PortState;

/** The names the transport reports are the verbs names with the verbs values, as gcc sees the header. */
class StatusNamesTest {

    @Test
    void everyCompletionStatusHasItsVerbsNameAndValue() throws Exception {
        Map<String, Long> c = LayoutTool.facts();
        int seen = 0;
        for (String key : c.keySet()) {
            if (key.startsWith("IBV_WC_") && key.endsWith("_ERR") || key.equals("IBV_WC_SUCCESS")
                    || key.equals("IBV_WC_TM_RNDV_INCOMPLETE")) {
                String name = key.substring("IBV_WC_".length());
                WcStatus status = WcStatus.valueOf(name);
                assertEquals(c.get(key).intValue(), status.code(), key);
                assertEquals(status, WcStatus.fromCode(c.get(key).intValue()), key);
                seen++;
            }
        }
        assertEquals(WcStatus.values().length, seen, "every WcStatus must correspond to one IBV_WC_* status");
    }

    @Test
    void unknownStatusValuesReadAsGeneralError() {
        assertEquals(WcStatus.GENERAL_ERR, WcStatus.fromCode(-1));
        assertEquals(WcStatus.GENERAL_ERR, WcStatus.fromCode(1000));
    }

    @Test
    void completionOpcodesRequestOpcodesMtusPortStatesAndLinkLayersMatch() throws Exception {
        Map<String, Long> c = LayoutTool.facts();
        for (WcOpcode o : WcOpcode.values()) {
            assertEquals(c.get("IBV_WC_" + o.name()).intValue(), o.code(), o.name());
        }
        for (Opcode o : Opcode.values()) {
            if (o == Opcode.RECV) {
                continue;
            }
            String cName = switch (o) {
                case WRITE -> "IBV_WR_RDMA_WRITE";
                case WRITE_WITH_IMM -> "IBV_WR_RDMA_WRITE_WITH_IMM";
                case READ -> "IBV_WR_RDMA_READ";
                default -> "IBV_WR_" + o.name();
            };
            assertEquals(c.get(cName).intValue(), o.verbsOpcode(), cName);
        }
        for (Mtu m : Mtu.values()) {
            assertEquals(c.get("IBV_MTU_" + m.bytes()).intValue(), m.code(), m.name());
        }
        for (PortState s : PortState.values()) {
            assertEquals(c.get("IBV_PORT_" + s.name()).intValue(), s.code(), s.name());
        }
        assertEquals(c.get("IBV_LINK_LAYER_INFINIBAND").intValue(), LinkLayer.INFINIBAND.code());
        assertEquals(c.get("IBV_LINK_LAYER_ETHERNET").intValue(), LinkLayer.ETHERNET.code());
        assertEquals(c.get("IBV_LINK_LAYER_UNSPECIFIED").intValue(), LinkLayer.UNSPECIFIED.code());
        for (QpState s : QpState.values()) {
            assertEquals(c.get("IBV_QPS_" + s.name()).intValue(), s.code(), s.name());
        }
    }

    @Test
    void theLibraryNamesEveryStatusItself() {
        // the software device's ibv_wc_status_str mirrors rdma-core's table
        try (VerbsLibrary lib = VerbsLibrary.load(org.objrdma.verbs.testsupport.SoftVerbs.library())) {
            assertTrue(lib.isAvailable(), lib.unavailabilityCause().orElse(""));
            assertEquals("remote access error", lib.wcStatusString(WcStatus.REM_ACCESS_ERR.code()));
            assertEquals("Work Request Flushed Error", lib.wcStatusString(WcStatus.WR_FLUSH_ERR.code()));
            for (WcStatus s : WcStatus.values()) {
                assertNotNull(lib.wcStatusString(s.code()));
            }
        }
    }
}
