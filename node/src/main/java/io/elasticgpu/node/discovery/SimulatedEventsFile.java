package io.elasticgpu.node.discovery;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The lines appended to a file since the last look, like {@code tail -f}: what the file held when it was opened is
 * history and is skipped, a line counts once it ends with a newline, and a file that shrank is read again from the
 * start. The file need not exist yet. For one reading thread.
 */
final class SimulatedEventsFile {

    /** One line and its number in the file, for messages. */
    record Line(int number, String text) {}

    private final Path file;
    private long offset;
    private int lines;

    SimulatedEventsFile(Path file) {
        this.file = file;
        newLines(); // skips the history
    }

    Path path() {
        return file;
    }

    /** Complete lines appended since the last call, oldest first. */
    List<Line> newLines() {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = channel.size();
            if (size < offset) {
                offset = 0;
                lines = 0;
            }
            ByteBuffer added = ByteBuffer.allocate((int) Math.min(size - offset, 1 << 20));
            channel.read(added, offset);
            int end = added.position();
            while (end > 0 && added.get(end - 1) != '\n') {
                end--;
            }
            offset += end;
            List<Line> found = new ArrayList<>();
            new String(added.array(), 0, end, StandardCharsets.UTF_8)
                    .lines()
                    .forEach(text -> found.add(new Line(++lines, text)));
            return found;
        } catch (NoSuchFileException e) {
            offset = 0;
            lines = 0;
            return List.of();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the events file " + file, e);
        }
    }
}
