package io.aryl.yarn.state;

import java.io.IOException;
import java.util.Map;

/**
 * Where Aryl keeps what must outlive a ResourceManager: named sections of bytes. Only the scheduler
 * that claimed the store last may write; an earlier claimant's writes fail with {@link
 * StoreFencedException}, so a deposed active ResourceManager cannot overwrite its successor.
 *
 * <p>Lifecycle: {@link #claim()} once when the scheduler becomes active, then any number of {@link
 * #readAll()} and {@link #write}, then {@link #close()}.
 */
public interface StateStore extends AutoCloseable {
  /**
   * Makes this scheduler the only writer.
   *
   * @return the claim's epoch: larger than every earlier claim's
   */
  long claim() throws IOException;

  /** Every stored section, by name. */
  Map<String, byte[]> readAll() throws IOException;

  /**
   * Replaces one section.
   *
   * @throws StoreFencedException when another scheduler claimed the store since this one did
   */
  void write(String section, byte[] data) throws IOException;

  /** {@code zookeeper}, {@code filesystem} or {@code memory}. */
  String kind();

  /** Where the store is (a ZooKeeper path or a directory), for the status and for messages. */
  String location();

  /**
   * Where one section is kept (its znode or file), for messages that say what to inspect or reset.
   */
  String location(String section);

  /** The command an operator runs to delete one section (with every ResourceManager stopped). */
  String deleteCommand(String section);

  @Override
  void close();
}
