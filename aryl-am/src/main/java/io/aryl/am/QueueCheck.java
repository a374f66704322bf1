package io.aryl.am;

import java.util.List;
import java.util.Objects;

/**
 * The queue a job is submitted to must be a leaf queue the ResourceManager knows. It may be named
 * by its full path ({@code root.training}) or by its short name ({@code training}) when no other
 * queue has that short name: the names YARN itself accepts.
 */
final class QueueCheck {
  private QueueCheck() {}

  /**
   * A queue of the ResourceManager's tree.
   *
   * @param path full path, e.g. {@code root.training}
   * @param children full paths of its child queues; none for a leaf queue
   * @param defaultNodeLabel the partition its containers go to when they name none; "" is the
   *     default partition
   */
  record Queue(String path, List<String> children, String defaultNodeLabel) {
    Queue {
      if (path == null || path.isBlank()) {
        throw new IllegalArgumentException("queue path must not be blank, was '" + path + "'");
      }
      children = List.copyOf(Objects.requireNonNull(children, "children of queue " + path));
      defaultNodeLabel = defaultNodeLabel == null ? "" : defaultNodeLabel.trim();
    }

    String shortName() {
      return path.substring(path.lastIndexOf('.') + 1);
    }

    boolean isLeaf() {
      return children.isEmpty();
    }
  }

  /**
   * The leaf queue {@code asked} names among {@code queues} (the whole tree, root included).
   *
   * @throws IllegalArgumentException naming the option and the value when the queue is unknown, the
   *     short name is not unique, or the queue is a parent
   */
  static Queue leaf(String asked, List<Queue> queues) {
    List<Queue> matches = queues.stream().filter(q -> q.path().equals(asked)).toList();
    if (matches.isEmpty()) {
      matches = queues.stream().filter(q -> q.shortName().equals(asked)).toList();
    }
    if (matches.isEmpty()) {
      throw new IllegalArgumentException("--queue: unknown queue '" + asked + "'");
    }
    if (matches.size() > 1) {
      throw new IllegalArgumentException(
          "--queue: '"
              + asked
              + "' is the name of more than one queue ("
              + String.join(", ", matches.stream().map(Queue::path).toList())
              + "); give its full path");
    }
    Queue queue = matches.get(0);
    if (!queue.isLeaf()) {
      throw new IllegalArgumentException(
          "--queue: '"
              + asked
              + "' is a parent queue (of "
              + String.join(", ", queue.children())
              + "); jobs are submitted to a leaf queue");
    }
    return queue;
  }
}
