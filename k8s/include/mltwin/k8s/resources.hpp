// mltwin/k8s/resources.hpp — Kubernetes quantities and resource lists as JSON carries them, read
// as the API server reads a quantity (k8s.io/apimachinery pkg/api/resource, Quantity.UnmarshalJSON)
// and as Volcano turns a core/v1 ResourceList into its Resource (pkg/scheduler/api/resource_info.go
// NewResource at v1.12.1).
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "mltwin/k8s/validation.hpp"  // FieldProblem
#include "mltwin/policy/quantity.hpp"
#include "mltwin/policy/resource.hpp"

namespace mltwin::k8s {

/// A double as Go's encoding/json writes it (floatEncoder): the shortest digits that read back
/// as the same double, in fixed notation, or in exponent notation below 1e-6 and from 1e21 up
/// ("1e-7", "1e+21"). What the API server receives for a YAML manifest's floating-point value
/// after sigs.k8s.io/yaml's YAMLToJSON. `v` must be finite.
std::string go_json_float(double v);

/// The text Kubernetes' Quantity.UnmarshalJSON would parse for a JSON value: a string's
/// content; an integer's decimal digits ("16"); a floating-point number as Go's encoding/json
/// writes that double (go_json_float: 1.5 is "1.5", 1e21 is "1e+21"), which is what the API
/// server receives for a manifest's `cpu: 1.5` after sigs.k8s.io/yaml. Throws
/// std::invalid_argument for any other JSON type or a non-finite number.
std::string quantity_text(const nlohmann::json& q);

/// A Kubernetes quantity from a JSON value, exactly as the API server reads it: quantity_text,
/// surrounding white space trimmed (strings.TrimSpace, as UnmarshalJSON does: " 16 " is 16),
/// then policy::parse_quantity (k8s.io/apimachinery's grammar: "0x10Gi" and "1e2Gi" are
/// errors). Throws policy::QuantityError (a std::invalid_argument) naming the text.
policy::Quantity quantity_of(const nlohmann::json& q);

/// quantity_of as a plain number in the base unit (cores, bytes, count): the exact amount's
/// nearest double. Throws std::invalid_argument naming the text when it is not a quantity, is
/// negative, or its Value() does not fit in int64 (Kubernetes would overflow there).
double parse_quantity(const nlohmann::json& q);

/// What to do with a resource name Volcano does not count (not cpu, memory or a scalar name:
/// is_scalar_resource_name; or a `count/*` quota name).
enum class UnknownResource {
  Refuse,  ///< a problem (a scenario or manifest names resources on purpose: a typo is an error)
  Skip,    ///< left out, as Volcano's NewResource leaves it out (a live object's status)
};

/// Adds a core/v1 ResourceList (an object of name -> quantity) to `r` as Volcano's NewResource
/// does (api/resource_info.go:71-107): cpu as Quantity.MilliValue() (millicores), memory and
/// pods as Value() (bytes, a count; pods also in max_task_num), every other scalar as
/// MilliValue() — each rounded up, exactly. Returns the first problem (field: the resource's
/// name; a negative or malformed quantity, or an unknown name with UnknownResource::Refuse),
/// leaving `r` partly filled.
std::optional<FieldProblem> resource_list_problem(const nlohmann::json& list, policy::Resource& r,
                                                  UnknownResource unknown = UnknownResource::Refuse);

}  // namespace mltwin::k8s
