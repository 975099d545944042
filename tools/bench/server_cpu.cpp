#include "server_cpu.hpp"

#include <dirent.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace sluice::bench {

namespace {

// The fields of /proc/PID/stat after the command name (which may hold
// spaces and ends at the last ')'), numbered from 3 as in proc(5).
bool read_stat(pid_t pid, std::vector<std::string>& fields) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return false;
  const std::size_t close = line.rfind(')');
  if (close == std::string::npos) return false;
  std::istringstream words(line.substr(close + 1));
  fields.assign(3, std::string());
  for (std::string word; words >> word;) fields.push_back(word);
  return fields.size() > 15;
}

// `pid` and every live process whose parent chain leads to it.
std::vector<pid_t> process_tree(pid_t pid) {
  std::vector<std::pair<pid_t, pid_t>> parent_of;  // (pid, ppid)
  if (DIR* proc = ::opendir("/proc")) {
    std::vector<std::string> fields;
    while (const dirent* entry = ::readdir(proc)) {
      const pid_t p = static_cast<pid_t>(std::atoi(entry->d_name));
      if (p > 0 && p != pid && read_stat(p, fields)) parent_of.emplace_back(p, static_cast<pid_t>(std::atoi(fields[4].c_str())));
    }
    ::closedir(proc);
  }
  std::vector<pid_t> tree = {pid};
  for (std::size_t i = 0; i < tree.size(); ++i) {
    for (const auto& [p, ppid] : parent_of) {
      if (ppid == tree[i]) tree.push_back(p);
    }
  }
  return tree;
}

}  // namespace

double process_cpu_seconds(pid_t pid) {
  std::vector<std::string> fields;
  if (pid <= 0 || !read_stat(pid, fields)) return -1;
  const long ticks = ::sysconf(_SC_CLK_TCK);
  if (ticks <= 0) return -1;
  unsigned long long total = 0;
  for (const pid_t p : process_tree(pid)) {
    // utime and stime, fields 14 and 15, in clock ticks.
    if (read_stat(p, fields)) total += std::stoull(fields[14]) + std::stoull(fields[15]);
  }
  return static_cast<double>(total) / static_cast<double>(ticks);
}

std::int64_t process_rss_bytes(pid_t pid) {
  if (pid <= 0) return -1;
  std::int64_t total = 0;
  bool any = false;
  for (const pid_t p : process_tree(pid)) {
    std::ifstream in("/proc/" + std::to_string(p) + "/status");
    for (std::string line; std::getline(in, line);) {
      if (!line.starts_with("VmRSS:")) continue;
      total += std::atoll(line.c_str() + 6) * 1024;  // "VmRSS:   1234 kB"
      any = true;
    }
  }
  return any ? total : -1;
}

}  // namespace sluice::bench
