// results_schema.cpp — SQL and Markdown from the table descriptions (results_schema.hpp).
#include "mltwin/store/results_schema.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace mltwin::store::schema {
namespace {

/// The names of the columns of `t` written by `w`, separated by `sep`, each as `fmt` makes it.
template <class Fmt>
std::string join_columns(const Table& t, Written w, std::string_view sep, Fmt fmt) {
  std::string out;
  int i = 0;
  for (const Column& c : t.columns) {
    if ((c.written & w) == 0) continue;
    if (i > 0) out += sep;
    out += fmt(c, i++);
  }
  return out;
}

}  // namespace

std::string create_table_sql(const Table& t) {
  std::size_t width = 0;
  for (const Column& c : t.columns) width = std::max(width, c.name.size());
  std::string out = std::string("CREATE TABLE ") + std::string(t.name) + " (\n";
  for (std::size_t i = 0; i < t.columns.size(); ++i) {
    const Column& c = t.columns[i];
    out += std::string("  ") + std::string(c.name) + std::string(width + 1 - c.name.size(), ' ') + std::string(c.decl);
    out += i + 1 < t.columns.size() ? ",\n" : "\n";
  }
  return out + ");\n";
}

std::string insert_sql(const Table& t) {
  return std::string("INSERT INTO ") + std::string(t.name) + " (" +
         join_columns(t, kInsert, ", ", [](const Column& c, int) { return std::string(c.name); }) + ") VALUES ";
}

std::string row_placeholders(const Table& t) {
  return std::string("(") + join_columns(t, kInsert, ", ", [](const Column&, int) { return std::string("?"); }) + ")";
}

std::string update_sql(const Table& t) {
  return std::string("UPDATE ") + std::string(t.name) + " SET " +
         join_columns(t, kUpdate, ", ",
                      [](const Column& c, int i) { return std::string(c.name) + " = ?" + std::to_string(i + 2); }) +
         " WHERE " + std::string(t.key) + " = ?1";
}

std::string index_sql(const Table& t) {
  if (t.index_on.empty()) return "";
  const std::string table(t.name), column(t.index_on);
  return std::string("CREATE INDEX ") + table + "_by_" + column + " ON " + table + "(" + column + ");\n";
}

std::string columns_markdown(const Table& t) {
  bool units = false, metrics = false;
  for (const Column& c : t.columns) {
    units = units || !c.unit.empty();
    metrics = metrics || !c.metric.empty();
  }
  std::string out = "| column | type |";
  std::string rule = "|---|---|";
  if (units) out += " unit |", rule += "---|";
  if (metrics) out += " CloudWatch metric (statistic) |", rule += "---|";
  out += std::string(" meaning |\n") + rule + "---|\n";
  const auto cell = [&out](std::string_view text) {
    if (!text.empty()) (out += ' ') += text;
    out += " |";
  };
  for (const Column& c : t.columns) {
    out += std::string("| `") + std::string(c.name) + "` |";
    cell(c.decl);
    if (units) cell(c.unit);
    if (metrics) cell(c.metric);
    cell(c.meaning);
    out += '\n';
  }
  return out;
}

std::string indexes_markdown(Holder holder) {
  std::string out = "```sql\n";
  for (const Table* t : kTables)
    if (t->holder == holder) out += index_sql(*t);
  return out + "```\n";
}

std::string update_markdown(std::string_view page) {
  // Blocks: "<!-- columns: NAME -->\n" ... "<!-- end -->\n" and "<!-- indexes: training|inference -->\n" ... "<!-- end -->\n".
  constexpr std::string_view kOpen = "<!-- ", kClose = " -->\n", kEnd = "<!-- end -->\n";
  std::string out;
  std::vector<std::string_view> seen;
  std::size_t pos = 0;
  int line = 1;
  const auto line_at = [&](std::size_t at) {
    for (std::size_t i = pos; i < at; ++i) line += page[i] == '\n' ? 1 : 0;
    pos = at;
    return line;
  };
  std::size_t copied = 0;
  for (std::size_t at = page.find(kOpen); at != std::string_view::npos; at = page.find(kOpen, at + 1)) {
    const std::size_t close = page.find(kClose, at);
    if (close == std::string_view::npos) continue;
    const std::string_view tag = page.substr(at + kOpen.size(), close - at - kOpen.size());
    std::string body;
    if (tag.starts_with("columns: ")) {
      const std::string_view name = tag.substr(9);
      const Table* table = nullptr;
      for (const Table* t : kTables)
        if (t->name == name) table = t;
      if (table == nullptr)
        throw std::invalid_argument(std::string("line ") + std::to_string(line_at(at)) + ": no table '" + std::string(name) + "' in the schema");
      if (std::find(seen.begin(), seen.end(), table->name) != seen.end())
        throw std::invalid_argument(std::string("line ") + std::to_string(line_at(at)) + ": table '" + std::string(name) + "' documented twice");
      seen.push_back(table->name);
      body = columns_markdown(*table);
    } else if (tag == "indexes: training" || tag == "indexes: inference") {
      body = indexes_markdown(tag.ends_with("training") ? Holder::Training : Holder::Inference);
    } else {
      continue;  // another comment
    }
    const std::size_t end = page.find(kEnd, close);
    if (end == std::string_view::npos)
      throw std::invalid_argument(std::string("line ") + std::to_string(line_at(at)) + ": '<!-- " + std::string(tag) + " -->' has no '<!-- end -->'");
    out.append(page.substr(copied, close + kClose.size() - copied));
    out += body;
    copied = end;
    at = end;
  }
  out.append(page.substr(copied));
  for (const Table* t : kTables)
    if (std::find(seen.begin(), seen.end(), t->name) == seen.end())
      throw std::invalid_argument(std::string("table '") + std::string(t->name) + "' has no '<!-- columns: " + std::string(t->name) + " -->' block");
  return out;
}

}  // namespace mltwin::store::schema
