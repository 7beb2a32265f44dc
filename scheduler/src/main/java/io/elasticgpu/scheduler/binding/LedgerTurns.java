package io.elasticgpu.scheduler.binding;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * This replica's writes to one node's ledger take turns, and the requests that arrive while one writes go together
 * in the next write. kube-scheduler binds pods in parallel and a packing policy sends the next pods to the same node:
 * without turns each bind wrote on the version the bind before had just replaced, was refused (409), read the ledger
 * again and retried. A turn lasts one read-choose-write, never a Binding or kubelet's admission. Thread-safe.
 *
 * @param <R> a request to be written (a pod to reserve cards for)
 * @param <O> what the write made of it
 */
final class LedgerTurns<R, O> {

    private record Waiting<R, O>(R request, CompletableFuture<O> outcome) {}

    private static final class Turn<R, O> {
        final ReentrantLock lock = new ReentrantLock();
        final Queue<Waiting<R, O>> waiting = new ConcurrentLinkedQueue<>();
    }

    private final Map<String, Turn<R, O>> turns = new ConcurrentHashMap<>();

    /**
     * {@code request}'s outcome from {@code write}, which is called in {@code node}'s turn with every request that
     * waited for it (this one among them, in arrival order) and must answer each; maybe by another thread's call.
     *
     * @throws RuntimeException what {@code write} threw for the batch this request was in
     */
    O join(String node, R request, Function<List<R>, Map<R, O>> write) {
        Turn<R, O> turn = turn(node);
        Waiting<R, O> mine = new Waiting<>(request, new CompletableFuture<>());
        turn.waiting.add(mine);
        turn.lock.lock();
        try {
            if (!mine.outcome().isDone()) {
                List<Waiting<R, O>> batch = new ArrayList<>();
                for (Waiting<R, O> w = turn.waiting.poll(); w != null; w = turn.waiting.poll()) {
                    batch.add(w);
                }
                answer(batch, write);
            }
        } finally {
            turn.lock.unlock();
        }
        return outcome(mine.outcome());
    }

    /** {@code action} in {@code node}'s turn, alone (undoing a bind, tidying). */
    <T> T alone(String node, Supplier<T> action) {
        ReentrantLock lock = turn(node).lock;
        lock.lock();
        try {
            return action.get();
        } finally {
            lock.unlock();
        }
    }

    /** Requests waiting for {@code node}'s next turn (for tests). */
    int waiting(String node) {
        Turn<R, O> turn = turns.get(node);
        return turn == null ? 0 : turn.waiting.size();
    }

    private Turn<R, O> turn(String node) {
        return turns.computeIfAbsent(node, n -> new Turn<>());
    }

    private static <R, O> void answer(List<Waiting<R, O>> batch, Function<List<R>, Map<R, O>> write) {
        try {
            Map<R, O> outcomes =
                    write.apply(batch.stream().map(Waiting::request).toList());
            batch.forEach(w -> w.outcome().complete(outcomes.get(w.request())));
        } catch (RuntimeException e) {
            batch.forEach(w -> w.outcome().completeExceptionally(e));
        }
    }

    private static <O> O outcome(CompletableFuture<O> outcome) {
        try {
            return outcome.get();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ClusterApi.ApiException("interrupted while waiting for the node's ledger");
        }
    }
}
