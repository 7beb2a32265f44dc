package io.elasticgpu.node.dra;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The prepared claims, kept in one JSON file under the plugin directory so that a restarted agent answers kubelet's
 * repeated prepare and its unprepare exactly as before. Every change rewrites the file atomically (a temporary file
 * moved over it), so a crash leaves the old or the new content, never half of one. Not thread-safe: the caller
 * serializes changes.
 */
public final class Checkpoint {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final TypeReference<List<PreparedClaim>> CLAIMS = new TypeReference<>() {};

    private final Path file;
    private final Map<String, PreparedClaim> byUid = new LinkedHashMap<>();

    private Checkpoint(Path file) {
        this.file = file;
    }

    /**
     * Reads {@code file}, or starts empty when there is none.
     *
     * @throws IllegalStateException when the file is not a checkpoint: starting empty would forget prepared claims
     */
    public static Checkpoint open(Path file) {
        Checkpoint c = new Checkpoint(file);
        if (Files.exists(file)) {
            try {
                JSON.readValue(file.toFile(), CLAIMS)
                        .forEach(p -> c.byUid.put(p.claim().uid(), p));
            } catch (IOException e) {
                throw new IllegalStateException(
                        ("DRA checkpoint %s cannot be read (%s); the claims prepared on this node are"
                                        + " unknown. Move it aside and restart the agent; kubelet prepares running "
                                        + "pods' claims again")
                                .formatted(file, e.getMessage()),
                        e);
            }
        }
        return c;
    }

    public Optional<PreparedClaim> get(String uid) {
        return Optional.ofNullable(byUid.get(uid));
    }

    public Collection<PreparedClaim> all() {
        return List.copyOf(byUid.values());
    }

    /** Adds {@code claim}; when the file cannot be written, nothing changes and the error says why. */
    public void put(PreparedClaim claim) {
        PreparedClaim before = byUid.put(claim.claim().uid(), claim);
        saveOrRestore(claim.claim().uid(), before);
    }

    /** Removes the claim with {@code uid}, if there is one; when the file cannot be written, nothing changes. */
    public void remove(String uid) {
        PreparedClaim before = byUid.remove(uid);
        if (before != null) {
            saveOrRestore(uid, before);
        }
    }

    private void saveOrRestore(String uid, PreparedClaim before) {
        try {
            save();
        } catch (UncheckedIOException e) {
            if (before == null) {
                byUid.remove(uid);
            } else {
                byUid.put(uid, before);
            }
            throw e;
        }
    }

    private void save() {
        try {
            Files.createDirectories(file.getParent());
            Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
            JSON.writeValue(tmp.toFile(), List.copyOf(byUid.values()));
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot write the DRA checkpoint %s: %s; check the plugin directory is writable"
                            .formatted(file, e.getMessage()),
                    e);
        }
    }
}
