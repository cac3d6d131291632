package throttle

import (
	"encoding/json"

	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
)

// aztablesMarshal returns the JSON of an entity with one property, as
// callers of aztables build them.
func aztablesMarshal(pk, rk string) ([]byte, error) {
	return json.Marshal(aztables.EDMEntity{
		Entity:     aztables.Entity{PartitionKey: pk, RowKey: rk},
		Properties: map[string]any{"N": int32(1)},
	})
}
