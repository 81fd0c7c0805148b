package api

import (
	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/handlers/request"
)

// The ids a path names, percent-decoded; one that is not a valid escape
// names nothing, so it is the resource's 404.

func paymentRef(c *fiber.Ctx) (string, error) { return pathID(c, "ref", reply.NoSuchPayment) }

func webhookID(c *fiber.Ctx) (string, error) {
	return pathID(c, "id", func(id string) *reply.Error { return reply.NoSuch("webhook", "id", id) })
}

func disputeID(c *fiber.Ctx) (string, error) {
	return pathID(c, "id", func(id string) *reply.Error { return reply.NoSuch("dispute", "id", id) })
}

func withdrawalID(c *fiber.Ctx) (string, error) {
	return pathID(c, "id", func(id string) *reply.Error { return reply.NoSuch("withdrawal", "id", id) })
}

func refundID(c *fiber.Ctx) (string, error) {
	return pathID(c, "id", func(id string) *reply.Error { return reply.NoSuch("refund", "id", id) })
}

func deliveryID(c *fiber.Ctx) (string, error) {
	return pathID(c, "delivery_id", func(id string) *reply.Error { return reply.NoSuch("delivery", "delivery_id", id) })
}

func pathID(c *fiber.Ctx, name string, notFound func(string) *reply.Error) (string, error) {
	id, ok := request.Param(c, name)
	if !ok {
		return "", notFound(id)
	}
	return id, nil
}
