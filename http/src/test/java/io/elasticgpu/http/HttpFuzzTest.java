package io.elasticgpu.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The fuzzer's own mutations must not throw, whatever garbage they are given. */
class HttpFuzzTest {

    /** Found in CI: garbage with a dollar sign made the fuzzer itself throw "Illegal group reference". */
    @Test
    void garbageWithReplacementSyntaxIsInsertedAsItIs() {
        assertThat(HttpFuzz.mutate("{\"a\":12}", 2, 0, "$1\\x")).isEqualTo("{\"a\":\"$1\\x\"}");
    }
}
