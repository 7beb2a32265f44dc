package io.elasticgpu.core.placement;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.policy.Choice;
import io.elasticgpu.core.policy.Policy;
import io.elasticgpu.core.snapshot.NodeState;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A policy's choices per node and ask, valid while the node's state is the same object. Node states are
 * immutable, so identity is enough to know nothing changed.
 */
final class ScoreCache {

    /** An ask with its hash computed once per cycle: hashing a record on every node lookup is the hot path. */
    static final class Key {
        private final Ask ask;
        private final int hash;

        Key(Ask ask) {
            this.ask = ask;
            this.hash = ask.hashCode();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.hash == hash && (k.ask == ask || k.ask.equals(ask));
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    private final List<NodeState> states = new ArrayList<>();
    private final List<Map<Key, Choice>> choices = new ArrayList<>();

    Choice get(int index, NodeState node, Key key, Policy policy) {
        while (states.size() <= index) {
            states.add(null);
            choices.add(new HashMap<>());
        }
        Map<Key, Choice> byRequest = choices.get(index);
        if (states.get(index) != node) {
            states.set(index, node);
            byRequest.clear();
        }
        Choice choice = byRequest.get(key);
        if (choice == null) {
            choice = policy.choose(key.ask, node);
            byRequest.put(key, choice);
        }
        return choice;
    }
}
