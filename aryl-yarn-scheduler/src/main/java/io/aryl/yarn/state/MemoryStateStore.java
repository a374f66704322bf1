package io.aryl.yarn.state;

import java.util.Map;
import java.util.TreeMap;

/**
 * State kept in this scheduler's memory only: lost with the ResourceManager. For tests and
 * benchmarks, or a cluster that accepts losing its loans on a restart ({@code
 * aryl.scheduler.state-store=memory}).
 */
public final class MemoryStateStore implements StateStore {
  private final Map<String, byte[]> sections = new TreeMap<>();
  private long epoch;

  @Override
  public synchronized long claim() {
    return ++epoch;
  }

  @Override
  public synchronized Map<String, byte[]> readAll() {
    return new TreeMap<>(sections);
  }

  @Override
  public synchronized void write(String section, byte[] data) {
    sections.put(section, data.clone());
  }

  @Override
  public String kind() {
    return "memory";
  }

  @Override
  public String location() {
    return "the ResourceManager's memory";
  }

  @Override
  public String location(String section) {
    return "section " + section + " in " + location();
  }

  @Override
  public String deleteCommand(String section) {
    return "restart the ResourceManager";
  }

  @Override
  public void close() {}
}
