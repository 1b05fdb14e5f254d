export { TemplateService } from './template-service.ts';
export { registerInstanceTemplateRoutes } from './routes.ts';
export { INSTANCE_TEMPLATES_KIND, renderTemplate, templatePath, type StoredTemplate } from './template.ts';
