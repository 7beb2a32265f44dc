package io.elasticgpu.scheduler.requeue;

import static io.elasticgpu.scheduler.K8s.node;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.scheduler.binding.InMemoryClusterApi;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RequeueTest {

    private final InMemoryClusterApi api = new InMemoryClusterApi();
    private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-11-21T10:00:00Z"));
    private final InstantSource clock = now::get;
    private final Requeue requeue = new Requeue(api, clock, Duration.ofMinutes(5), Duration.ofMillis(300));

    RequeueTest() {
        api.addNode(node("n1", 2, 16_384, 0));
        api.addNode(node("n2", 2, 16_384, 0));
    }

    @AfterEach
    void close() {
        requeue.close();
    }

    private String freedAnnotation(String node) {
        var annotations = api.node(node).getMetadata().getAnnotations();
        return annotations == null ? null : annotations.get(Annotations.CAPACITY_FREED);
    }

    @Test
    void nothingIsWrittenWhenNobodyWasTurnedAway() {
        assertThat(requeue.freed("n1")).isFalse();
        assertThat(api.calls()).isZero();
    }

    @Test
    void capacityFreedAfterARejectionAnnotatesTheNodeWithTheTime() {
        requeue.rejected();
        assertThat(requeue.freed("n1")).isTrue();
        await().atMost(Duration.ofSeconds(10)).until(() -> freedAnnotation("n1") != null);
        assertThat(freedAnnotation("n1")).isEqualTo("2026-11-21T10:00:00Z");
        assertThat(freedAnnotation("n2")).isNull();
    }

    @Test
    void rejectionsOlderThanTheWindowAreForgotten() {
        requeue.rejected();
        now.set(now.get().plus(Duration.ofMinutes(5)).plusSeconds(1));
        assertThat(requeue.freed("n1")).isFalse();
        requeue.rejected();
        assertThat(requeue.freed("n1")).isTrue();
    }

    @Test
    void freesWhileAWriteIsQueuedAreCoalescedAndLaterOnesWriteAgain() {
        requeue.rejected();
        assertThat(requeue.freed("n1")).isTrue();
        await().atMost(Duration.ofSeconds(10)).until(() -> freedAnnotation("n1") != null);
        int calls = api.calls();
        // the clock stands still, so the next write waits out the 300 ms interval in real time
        assertThat(requeue.freed("n1")).isTrue();
        assertThat(requeue.freed("n1")).as("coalesced into the queued write").isFalse();
        now.set(now.get().plusSeconds(1));
        await().atMost(Duration.ofSeconds(10)).until(() -> "2026-11-21T10:00:01Z".equals(freedAnnotation("n1")));
        assertThat(api.calls()).isEqualTo(calls + 1);
    }

    @Test
    void aNodeThatCannotBeAnnotatedDoesNotStopLaterWrites() {
        requeue.rejected();
        assertThat(requeue.freed("gone")).isTrue();
        await().atMost(Duration.ofSeconds(10)).until(() -> api.calls() == 1);
        assertThat(requeue.freed("gone")).as("the failed write is no longer queued").isTrue();
        assertThat(requeue.freed("n2")).isTrue();
        await().atMost(Duration.ofSeconds(10)).until(() -> freedAnnotation("n2") != null);
    }
}
