package io.elasticgpu.node.discovery;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.elasticgpu.core.model.Link;
import io.elasticgpu.core.model.LinkKind;
import io.elasticgpu.core.model.Topology;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * Reads the YAML description of a simulated node into {@link Hardware}. Bad input fails with the file, the key, the
 * value and what to write instead, because a person edits these files by hand:
 * <pre>
 * driverVersion: "570.86.15"          # optional, default "simulated"
 * usage: true                         # optional, default false: processes come from the events file
 * cards:
 *   - {model: NVIDIA A100-SXM4-80GB, memoryMiB: 81920, numa: 0, count: 4}   # numa -1 and count 1 by default
 *   - {model: NVIDIA L4, memoryMiB: 23034, uuid: GPU-8d9e…}                 # uuid derived from a seed by default
 * links:                              # optional; every pair in cards gets the link, later entries win
 *   - {cards: [0, 1, 2, 3], kind: NVLINK, nvlinks: 12}
 *   - {cards: [0, 4], kind: PCIE_SWITCH}
 * </pre>
 * Pairs no link names are {@link Link#UNKNOWN}; PCI bus ids are {@code 00000000:<index in hex>:00.0}, minors the
 * index, MIG off.
 */
final class SimulatedNodeFile {

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final String EXAMPLE = "cards: [{model: NVIDIA A100-SXM4-80GB, memoryMiB: 81920}]";

    private final Path file;

    private SimulatedNodeFile(Path file) {
        this.file = file;
    }

    /**
     * @param seed what default uuids are derived from with the card index, e.g. the node name, so that nodes sharing
     *             one file get distinct cards and a restarted agent the same ones
     * @throws DiscoveryException for a missing file, bad YAML or a bad value
     */
    static Hardware read(Path file, String seed) {
        return described(file, seed).hardware();
    }

    /** What the file describes: the cards, and whether processes on them are simulated ({@code usage: true}). */
    record Described(Hardware hardware, boolean usage) {}

    /** The same as {@link #read}, with {@code usage}. */
    static Described described(Path file, String seed) {
        SimulatedNodeFile f = new SimulatedNodeFile(file);
        JsonNode root = f.parse();
        return new Described(f.hardware(root, seed), f.usage(root));
    }

    private boolean usage(JsonNode root) {
        JsonNode usage = root.path("usage");
        if (!usage.isMissingNode() && !usage.isBoolean()) {
            throw error(
                    "usage must be true or false, was %s; write usage: true to simulate processes with \"process"
                            + " <card> <pid> <MiB> [<SM %%>]\" lines in the events file",
                    shown(usage));
        }
        return usage.asBoolean(false);
    }

    private Hardware hardware(JsonNode root, String seed) {
        keys(root, "the top level", Set.of("driverVersion", "usage", "cards", "links"));
        JsonNode driver = root.path("driverVersion");
        if (!driver.isMissingNode() && !driver.isValueNode()) {
            throw error(
                    "driverVersion must be a version text, was %s; write e.g. driverVersion: \"570.86.15\"",
                    shown(driver));
        }
        JsonNode cards = root.path("cards");
        if (!cards.isArray() || cards.isEmpty()) {
            throw error("cards is missing or empty; list at least one card, e.g. %s", EXAMPLE);
        }
        List<Gpu> gpus = new ArrayList<>();
        for (int i = 0; i < cards.size(); i++) {
            cards(cards.get(i), "cards[" + i + "]", seed, gpus);
        }
        Topology.Builder topology = Topology.builder(gpus.size());
        JsonNode links = root.path("links");
        if (!links.isMissingNode() && !links.isArray()) {
            throw error(
                    "links must be a list, e.g. links: [{cards: [0, 1], kind: NVLINK, nvlinks: 12}], was %s",
                    shown(links));
        }
        for (int i = 0; i < links.size(); i++) {
            link(links.get(i), "links[" + i + "]", gpus.size(), topology);
        }
        return new Hardware(driver.isMissingNode() ? "simulated" : driver.asText(), gpus, topology.build());
    }

    private JsonNode parse() {
        try {
            JsonNode root = YAML.readTree(Files.readString(file));
            if (root == null || !root.isObject()) {
                throw error("expected a mapping with cards, e.g. %s", EXAMPLE);
            }
            return root;
        } catch (NoSuchFileException e) {
            throw error("no such file; write the simulated node there, e.g. %s", EXAMPLE);
        } catch (JsonProcessingException e) {
            throw error("not valid YAML: %s", e.getOriginalMessage()); // the parser's text shows line and column
        } catch (IOException e) {
            throw error("cannot be read: %s", e);
        }
    }

    private void cards(JsonNode card, String at, String seed, List<Gpu> gpus) {
        keys(card, at, Set.of("model", "memoryMiB", "numa", "uuid", "count"));
        JsonNode model = card.path("model");
        if (!model.isTextual() || model.asText().isBlank()) {
            throw error(
                    "%s.model must be the product name, was %s; write e.g. model: NVIDIA A100-SXM4-80GB",
                    at, shown(model));
        }
        int memory = integer(card, at, "memoryMiB", 1, 0, "the card's memory in MiB; write e.g. memoryMiB: 81920");
        int numa = integer(card, at, "numa", -1, -1, "the NUMA node, -1 when unknown; write e.g. numa: 0");
        int count = integer(card, at, "count", 1, 1, "how many such cards; leave it out for one");
        JsonNode uuid = card.path("uuid");
        if (!uuid.isMissingNode() && (!uuid.isTextual() || !uuid.asText().startsWith("GPU-"))) {
            throw error(
                    "%s.uuid must start with GPU-, was %s; write e.g. uuid: "
                            + "GPU-0d9a6c4e-3f1b-4c2a-9e57-6b1d2f8a4c31, or"
                            + " leave it out",
                    at, shown(uuid));
        }
        if (!uuid.isMissingNode() && count > 1) {
            throw error(
                    "%s has a uuid and count %d, but cards cannot share a uuid; drop uuid or list the cards one by"
                            + " one",
                    at, count);
        }
        for (int n = 0; n < count; n++) {
            int index = gpus.size();
            gpus.add(new Gpu(
                    index,
                    uuid.isMissingNode() ? "GPU-" + derived(seed, index) : uuid.asText(),
                    model.asText(),
                    memory,
                    "00000000:%02X:00.0".formatted(index),
                    index,
                    numa,
                    false));
        }
    }

    private void link(JsonNode link, String at, int size, Topology.Builder topology) {
        keys(link, at, Set.of("cards", "kind", "nvlinks"));
        JsonNode cards = link.path("cards");
        if (!cards.isArray() || cards.size() < 2 || !cards.valueStream().allMatch(JsonNode::canConvertToInt)) {
            throw error("%s.cards must list two or more card indexes, e.g. cards: [0, 1], was %s", at, shown(cards));
        }
        JsonNode kindNode = link.path("kind");
        LinkKind kind = Arrays.stream(LinkKind.values())
                .filter(k -> k.name().equals(kindNode.asText()))
                .findFirst()
                .orElseThrow(() -> error(
                        "%s.kind must be one of %s, was %s",
                        at, Arrays.toString(LinkKind.values()).replaceAll("[\\[\\]]", ""), shown(kindNode)));
        int lanes = integer(link, at, "nvlinks", 0, 0, "the NVLink lanes between each pair; write e.g. nvlinks: 12");
        if (kind == LinkKind.NVLINK && lanes < 1) {
            throw error("%s is NVLINK and needs nvlinks >= 1, the lanes between each pair; write e.g. nvlinks: 12", at);
        }
        if (kind != LinkKind.NVLINK && lanes != 0) {
            throw error("%s is %s and cannot have nvlinks; drop nvlinks or make it kind: NVLINK", at, kind);
        }
        int[] members = cards.valueStream().mapToInt(JsonNode::asInt).toArray();
        for (int card : members) {
            if (card < 0 || card >= size) {
                throw error("%s.cards names card %d, but the node has %d cards (0..%d)", at, card, size, size - 1);
            }
        }
        for (int a = 0; a < members.length; a++) {
            for (int b = a + 1; b < members.length; b++) {
                if (members[a] != members[b]) {
                    topology.link(members[a], members[b], new Link(kind, lanes));
                }
            }
        }
    }

    /** The value of an optional whole-number key, or {@code absent}; {@code what} says what it means and how. */
    private int integer(JsonNode parent, String at, String key, int min, int absent, String what) {
        JsonNode value = parent.path(key);
        if (value.isMissingNode()) {
            if (min > absent) {
                throw error("%s.%s is missing; it is %s", at, key, what);
            }
            return absent;
        }
        if (!value.canConvertToInt() || !value.isIntegralNumber() || value.asInt() < min) {
            throw error("%s.%s must be a whole number >= %d, was %s; it is %s", at, key, min, shown(value), what);
        }
        return value.asInt();
    }

    private void keys(JsonNode node, String at, Set<String> known) {
        if (!node.isObject()) {
            throw error(
                    "%s must be a mapping with the keys %s, was %s",
                    at, String.join(", ", known.stream().sorted().toList()), shown(node));
        }
        for (String key : node.propertyStream().map(e -> e.getKey()).toList()) {
            if (!known.contains(key)) {
                throw error(
                        "unknown key \"%s\" in %s; the keys there are %s",
                        key, at, String.join(", ", known.stream().sorted().toList()));
            }
        }
    }

    private static String derived(String seed, int index) {
        return UUID.nameUUIDFromBytes(("elastic-gpu/" + seed + "/" + index).getBytes(StandardCharsets.UTF_8))
                .toString();
    }

    /** A value as the message shows it: strings quoted, as YAML or JSON would write them. */
    private static String shown(JsonNode value) {
        return value.isMissingNode() ? "nothing" : value.toString();
    }

    private DiscoveryException error(String format, Object... values) {
        return new DiscoveryException(file + ": " + format.formatted(values));
    }
}
