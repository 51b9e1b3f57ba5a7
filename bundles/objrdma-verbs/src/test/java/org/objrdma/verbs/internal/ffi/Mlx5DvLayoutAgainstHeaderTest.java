package org.objrdma.verbs.internal.ffi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Mlx5DvLayouts} and {@link Mlx5DvConstants} against what gcc says through the installed
 * {@code <infiniband/mlx5dv.h>} and {@code <infiniband/verbs.h>}. The probe is generated from the Java facts
 * themselves ({@code offsetof} / {@code sizeof} of every modelled member, the value of every constant), so a member
 * added to Java is checked without editing C, and a member the header does not have fails to compile.
 */
class Mlx5DvLayoutAgainstHeaderTest {

    @TempDir
    static Path dir;

    private static Map<String, Long> c;

    @BeforeAll
    static void runProbe() throws Exception {
        Map<String, Long> java = Mlx5DvLayouts.allFacts();
        StringBuilder src = new StringBuilder("""
                #include <stddef.h>
                #include <stdio.h>
                #include <infiniband/verbs.h>
                #include <infiniband/mlx5dv.h>
                int main(void) {
                """);
        for (String key : java.keySet()) {
            src.append("  printf(\"%s=%ld\\n\", \"").append(key).append("\", (long) ").append(expression(key))
                    .append(");\n");
        }
        for (String constant : constants().keySet()) {
            src.append("  printf(\"%s=%ld\\n\", \"").append(constant).append("\", (long) ").append(constant)
                    .append(");\n");
        }
        src.append("  printf(\"sizeof.mlx5dv_context=%ld\\n\", (long) sizeof(struct mlx5dv_context));\n");
        src.append("  return 0;\n}\n");
        Path source = dir.resolve("mlx5dv_probe.c");
        Path binary = dir.resolve("mlx5dv_probe");
        Files.writeString(source, src);
        run(List.of("gcc", "-std=gnu11", "-Wall", "-Werror", "-o", binary.toString(), source.toString()));
        c = IbvLayouts.parseFacts(run(List.of(binary.toString())));
    }

    /** The C expression whose value is the fact {@code key}. */
    private static String expression(String key) {
        if (key.startsWith("sizeof.")) {
            String path = key.substring(7);
            int dot = path.indexOf('.');
            return "sizeof(((struct " + path.substring(0, dot) + " *) 0)->" + path.substring(dot + 1) + ")";
        }
        int dot = key.indexOf('.');
        String struct = "struct " + key.substring(0, dot);
        String member = key.substring(dot + 1);
        return switch (member) {
            case "size" -> "sizeof(" + struct + ")";
            case "align" -> "_Alignof(" + struct + ")";
            default -> "offsetof(" + struct + ", " + member + ")";
        };
    }

    private static Map<String, Long> constants() throws IllegalAccessException {
        Map<String, Long> out = new LinkedHashMap<>();
        for (Field f : Mlx5DvConstants.class.getDeclaredFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == int.class) {
                out.put(f.getName(), (long) f.getInt(null));
            }
        }
        return out;
    }

    private static String run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), command + " did not finish");
        assertEquals(0, p.exitValue(), command + " failed:\n" + out);
        return out;
    }

    @Test
    void everyModelledMemberIsWhereTheHeaderPutsIt() {
        List<String> problems = new ArrayList<>();
        Map<String, Long> java = Mlx5DvLayouts.allFacts();
        java.forEach((k, v) -> {
            if (!v.equals(c.get(k))) {
                problems.add(k + ": java " + v + ", C " + c.get(k));
            }
        });
        assertEquals(List.of(), problems);
        assertTrue(java.size() > 150, "facts compared: " + java.size());
    }

    @Test
    void everyConstantIsTheHeadersValue() throws Exception {
        List<String> problems = new ArrayList<>();
        constants().forEach((k, v) -> {
            if (!v.equals(c.get(k))) {
                problems.add(k + ": java " + v + ", C " + c.get(k));
            }
        });
        assertEquals(List.of(), problems);
    }

    @Test
    void theContextBufferHoldsTheWholeStruct() {
        assertTrue(c.get("sizeof.mlx5dv_context") <= Mlx5DvLayouts.MLX5DV_CONTEXT_BUFFER_SIZE,
                "struct mlx5dv_context is " + c.get("sizeof.mlx5dv_context") + " bytes");
    }

    @Test
    void theSlotsTheDataPathCallsAreTheOnesTheSpecNames() {
        // ibv_qp_ex: the 160-byte ibv_qp, comp_mask, wr_id, wr_flags, then the builders in header order
        assertEquals(160, Mlx5DvLayouts.offset(Mlx5DvLayouts.IBV_QP_EX, "comp_mask"));
        assertEquals(168, Mlx5DvLayouts.offset(Mlx5DvLayouts.IBV_QP_EX, "wr_id"));
        assertEquals(176, Mlx5DvLayouts.offset(Mlx5DvLayouts.IBV_QP_EX, "wr_flags"));
        assertEquals(8, Mlx5DvLayouts.offset(Mlx5DvLayouts.MLX5DV_QP_EX, "wr_set_dc_addr"));
        assertEquals(8, Mlx5DvLayouts.offset(Mlx5DvLayouts.MLX5DV_QP_INIT_ATTR, "dc_init_attr.dct_access_key")
                - Mlx5DvLayouts.offset(Mlx5DvLayouts.MLX5DV_QP_INIT_ATTR, "dc_init_attr"));
    }
}
