package io.elasticgpu.node.dra;

import java.util.List;
import java.util.stream.Collectors;

/**
 * What a starting agent found against the claims that pods on its node hold ({@link ClaimPreparation#rebuild}).
 * Immutable.
 *
 * @param known    how many of those claims its checkpoint already held
 * @param rebuilt  the claims it held no record of, prepared again from their allocation (their CDI spec and, with MPS,
 *                 their share's daemon too)
 * @param failed   the claims it could not prepare again, each with why
 */
public record Rebuilt(int known, List<PreparedClaim> rebuilt, List<String> failed) {

    public Rebuilt {
        rebuilt = List.copyOf(rebuilt);
        failed = List.copyOf(failed);
    }

    /** True when the checkpoint held every claim the node's pods hold: nothing to tell. */
    public boolean nothing() {
        return rebuilt.isEmpty() && failed.isEmpty();
    }

    /** What was rebuilt and what failed, in a sentence or two for an event (each claim with its cards). */
    public String message() {
        String claims = rebuilt.stream()
                .map(p -> p.claim()
                        + " on card"
                        + (p.devices().size() == 1 ? " " : "s ")
                        + p.devices().stream()
                                .map(d -> Integer.toString(d.card()))
                                .distinct()
                                .collect(Collectors.joining(", ")))
                .collect(Collectors.joining("; "));
        String out = ("the DRA checkpoint held %d of the %d claims that pods on this node hold; rebuilt %d from the API"
                        + " (allocation and reservation): %s")
                .formatted(
                        known, known + rebuilt.size() + failed.size(), rebuilt.size(), claims.isEmpty() ? "-" : claims);
        return failed.isEmpty() ? out : out + "; could not rebuild " + failed.size() + ": " + String.join("; ", failed);
    }
}
