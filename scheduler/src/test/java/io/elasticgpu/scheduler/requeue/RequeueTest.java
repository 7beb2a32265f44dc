package io.elasticgpu.scheduler.requeue;

import static io.elasticgpu.scheduler.K8s.node;
import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.scheduler.binding.InMemoryClusterApi;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Driven by a hand-moved clock and {@link Requeue#writeDue()}: no test here waits on the wall clock. */
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
        assertThat(requeue.writeDue()).isEmpty();
        assertThat(api.calls()).isZero();
    }

    @Test
    void capacityFreedAfterARejectionAnnotatesTheNodeWithTheTime() {
        requeue.rejected();
        assertThat(requeue.freed("n1")).isTrue();
        assertThat(requeue.writeDue()).containsExactly("n1");
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
    void freesWithinTheIntervalAreCoalescedIntoOneLaterWrite() {
        requeue.rejected();
        requeue.freed("n1");
        requeue.writeDue();
        int calls = api.calls();
        assertThat(requeue.freed("n1")).isTrue();
        assertThat(requeue.freed("n1")).as("coalesced into the queued write").isFalse();
        now.set(now.get().plusMillis(299));
        assertThat(requeue.writeDue()).as("the interval has not passed").isEmpty();
        assertThat(api.calls()).isEqualTo(calls);
        now.set(now.get().plusMillis(1));
        assertThat(requeue.writeDue()).containsExactly("n1");
        assertThat(freedAnnotation("n1")).isEqualTo("2026-11-21T10:00:00.300Z");
        assertThat(api.calls()).isEqualTo(calls + 1);
    }

    @Test
    void aNodeThatCannotBeAnnotatedDoesNotStopLaterWrites() {
        requeue.rejected();
        assertThat(requeue.freed("gone")).isTrue();
        assertThat(requeue.writeDue()).containsExactly("gone");
        assertThat(requeue.freed("gone"))
                .as("the failed write is no longer queued")
                .isTrue();
        assertThat(requeue.freed("n2")).isTrue();
        assertThat(requeue.writeDue()).containsExactly("n2");
        assertThat(freedAnnotation("n2")).isNotNull();
    }

    @Test
    void theTimerWritesWhatIsDue() {
        requeue.rejected();
        requeue.freed("n1");
        requeue.every(Duration.ofMillis(10));
        // The one wait on real time here: the timer is a real thread, and this checks that it runs.
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> freedAnnotation("n1") != null);
    }
}
