package io.aryl.yarn.state;

import java.util.List;

/**
 * The containers being drained, as stored: the section {@link Section#DRAINS}.
 *
 * @param containers every container asked to stop and not yet gone
 */
public record DrainList(List<DrainRecord> containers) {
  public DrainList {
    containers = List.copyOf(containers);
  }
}
